"""aten::split_with_sizes_copy.out: x cut along dim into pieces of the
given sizes, one out tensor each. Any dtype; each piece is a strided gather
(util/strided.py) and the step does not allocate."""

from portable_kernels.util import checks, strided
from portable_kernels.util.emitters import HAS_THUMB


def split_with_sizes_copy_out(x, split_sizes, dim, out, ret=None):
    """`ret`: the return slot some exporters append (the same out list)."""
    what = "split_with_sizes_copy"
    checks.is_tensor(x, what + " self")
    if not x.sizes:
        checks.fail("%s: cannot split a 0-dim tensor" % what)
    d = checks.norm_dim(dim, len(x.sizes), what)
    sizes = checks.int_list(split_sizes, len(split_sizes) if isinstance(split_sizes, (list, tuple)) else 1, what + " split_sizes", 0)
    if sum(sizes) != x.sizes[d]:
        checks.fail("%s: split_sizes %s must add up to dim %d of %s" % (what, list(sizes), d, checks.shape_str(x)))
    return pieces(x, d, sizes, out, ret, what)


def pieces(x, d, sizes, outs, ret, what, keep_dim=True):
    """(step, ctx) copying consecutive pieces of x along d into outs."""
    if not isinstance(outs, (list, tuple)) or len(outs) != len(sizes):
        checks.fail("%s: expected a list of %d out tensors, got %r" % (what, len(sizes), outs))
    if ret is not None and (len(ret) != len(outs) or any(r is not o for r, o in zip(ret, outs))):
        checks.fail("%s: the return list must be the out list" % what)
    st = strided.view_strides(x)
    steps = []
    pos = 0
    for i, n in enumerate(sizes):
        o = outs[i]
        checks.is_tensor(o, "%s out[%d]" % (what, i))
        shape = list(x.sizes)
        shape[d] = n
        if not keep_dim:
            del shape[d]
        checks.out_shape(o, shape, "%s out[%d]" % (what, i))
        full = list(x.sizes)
        full[d] = n
        step = strided.gather(x, o, full, st, pos * st[d])
        if step is not None:
            steps.append(step)
        pos += n
    if not steps:
        return None
    if len(steps) == 1:
        return steps[0]
    if HAS_THUMB:  # contiguous pieces on Arm: one assembler step copies them all
        from portable_kernels.native import copy_thumb

        merged = copy_thumb.merge(steps)
        if merged is not None:
            return merged
    return _run_all, steps


def _run_all(steps):
    """Step: run each piece's step. Does not allocate."""
    for step, ctx in steps:
        step(ctx)

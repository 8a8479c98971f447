"""aten::slice_scatter.out: a copy of self whose slice start:end:step along
dim is replaced by src (circular padding decomposes to this). Any dtype;
the step copies self's bytes, then src's block over the slice
(strided.block_copy), and does not allocate. When out is self (the same
bytes: a band of a patched stage, host_tools/planning/patch.py) only the
block is copied, run by run when it is a few contiguous runs (util/runs.py)."""

from portable_kernels.op_slice_copy import clamp_index
from portable_kernels.util import checks, loops, runs, strided


def slice_scatter_out(x, src, dim, start, end, step, out):
    what = "slice_scatter"
    for t, name in ((x, "self"), (src, "src"), (out, "out")):
        checks.is_tensor(t, "%s %s" % (what, name))
    checks.same_dtype(x, src, out)
    if not x.sizes:
        checks.fail("%s: cannot slice a 0-dim tensor" % what)
    d = checks.norm_dim(dim, len(x.sizes), what)
    if not isinstance(step, int) or step < 1:
        checks.fail("%s: step must be a positive int, got %r" % (what, step))
    n = x.sizes[d]
    a = clamp_index(0 if start is None else start, n, what + " start")
    e = clamp_index(n if end is None else end, n, what + " end")
    length = (e - a + step - 1) // step if e > a else 0
    want = list(x.sizes)
    want[d] = length
    if list(src.sizes) != want:
        checks.fail("%s: src is %s; the slice of self %s is %s" % (what, checks.shape_str(src), checks.shape_str(x), want))
    checks.out_shape(out, x.sizes, what)
    st = loops.contiguous_strides(x.sizes)
    ost = list(st)
    ost[d] = st[d] * step
    in_place = x.buf is out.buf and x.offset == out.offset  # self is out: only the slice changes
    if in_place:
        blocks = runs.block_runs(src, 0, loops.contiguous_strides(src.sizes), out, a * st[d], ost, src.sizes)
        if blocks is not None:
            return runs.copy_step(src, out, blocks) if blocks else None
    part = strided.block_copy(src, 0, loops.contiguous_strides(src.sizes), out, a * st[d], ost, src.sizes)
    if in_place:
        return part
    whole = loops.copy_all(x, out)
    if whole is None:
        return None
    if part is None:
        return whole
    return strided.run_both, whole + part

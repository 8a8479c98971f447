"""aten::constant_pad_nd.out: x padded with `value`; pad lists (before,
after) pairs starting from the last dim; negative pads crop. Any dtype.

The step fills out with the value, then copies the kept block of x into
its place (strided.block_copy: rows of raw units); when the block is a few
contiguous runs (util/runs.py: rows of each channel), it copies them and
the padding between them from a pattern, run by run. Does not allocate.
"""

from mpy_et import dtypes
from portable_kernels.util import checks, fill, loops, runs, strided


def constant_pad_nd_out(x, pad, value, out):
    what = "constant_pad_nd"
    checks.is_tensor(x, what + " self")
    checks.is_tensor(out, what + " out")
    checks.same_dtype(x, out)
    nd = len(x.sizes)
    if not isinstance(pad, (tuple, list)) or len(pad) % 2 or len(pad) // 2 > nd:
        checks.fail("%s: pad must have an even length of at most 2 * %d entries, got %r" % (what, nd, pad))
    pad = checks.int_list(pad, len(pad), what + " pad") if pad else ()
    before = [0] * nd
    after = [0] * nd
    for i in range(len(pad) // 2):
        before[nd - 1 - i] = pad[2 * i]
        after[nd - 1 - i] = pad[2 * i + 1]
    sizes = [x.sizes[d] + before[d] + after[d] for d in range(nd)]
    for d in range(nd):
        if sizes[d] < 0:
            checks.fail("%s: pad %s leaves dim %d of %s with negative size %d" % (what, list(pad), d, checks.shape_str(x), sizes[d]))
    checks.out_shape(out, sizes, what)
    filled = fill.filler(out, value, what)
    if filled is None:
        return None
    # the block of x that lands in out: x[lo:hi] per dim -> out[lo + before:...]
    xs = loops.contiguous_strides(x.sizes)
    os = loops.contiguous_strides(sizes)
    block, xoff, ooff = [], 0, 0
    for d in range(nd):
        lo = max(0, -before[d])
        hi = min(x.sizes[d], sizes[d] - before[d])
        block.append(max(0, hi - lo))
        xoff += lo * xs[d]
        ooff += (lo + before[d]) * os[d]
    blocks = None if out.dtype == dtypes.LONG else runs.block_runs(x, xoff, xs, out, ooff, os, block)
    if blocks is not None:
        pads = runs.gaps(blocks, out.nbytes)
        if len(blocks) + len(pads) <= runs.MAX_RUNS:  # a few runs (rows of channels): copied whole
            return runs.copy_step(x, out, blocks, pads, fill.cast(value, out.dtype, what))
    copy = strided.block_copy(x, xoff, xs, out, ooff, os, block)
    if copy is None:
        return filled
    return strided.run_both, filled + copy

"""Block copies and fills as whole byte runs: memoryviews cut at load time,
copied by loops.copy_bytes (no element loop; does not allocate).

For blocks made of a few contiguous runs, as a band of rows of every
channel of an NCHW tensor (slice_scatter and constant_pad_nd in a patched
stage, host_tools/planning/patch.py): an element loop moves a byte in
hundreds of bytecode instructions, a run copy moves the whole run at once.
Each run keeps two memoryview objects on the heap, so a kernel takes this
path up to MAX_RUNS runs and walks elements beyond. Where the port has a
native emitter, native/copy_runs_viper.py copies the runs instead from an
array of their offsets (12 bytes a run, not two memoryviews).
"""

from mpy_et import dtypes
from mpy_et.port import const
from mpy_et.tensor import typed_view
from portable_kernels.util import loops
from portable_kernels.util.emitters import HAS_NATIVE

MAX_RUNS = const(256)


def block_runs(x, xoff, xstrides, out, ooff, ostrides, sizes):
    """[(out byte offset, x byte offset, bytes)] of the contiguous runs of a
    block of `sizes` elements (x at element xoff with xstrides into out at
    ooff with ostrides), or None when its rows are not contiguous in both or
    there are more than MAX_RUNS of them."""
    item = dtypes.itemsize(x.dtype)
    if loops.numel(sizes) == 0:
        return []
    dims, (sx, so) = loops.coalesce(list(sizes), (list(xstrides), list(ostrides)))
    if not dims:
        return [(ooff * item, xoff * item, item)]
    if sx[-1] != 1 or so[-1] != 1:
        return None
    outer = dims[:-1]
    count = loops.numel(outer)
    if count > MAX_RUNS:
        return None
    runs = []
    idx = [0] * len(outer)
    for _ in range(count):
        a, b = xoff, ooff
        for d in range(len(outer)):
            a += idx[d] * sx[d]
            b += idx[d] * so[d]
        runs.append((b * item, a * item, dims[-1] * item))
        d = len(outer) - 1
        while d >= 0:
            idx[d] += 1
            if idx[d] < outer[d]:
                break
            idx[d] = 0
            d -= 1
    return runs


def gaps(runs, nbytes):
    """[(offset, bytes)] of out not covered by runs (sorted, disjoint)."""
    out, at = [], 0
    for start, _, n in sorted(runs):
        if start > at:
            out.append((at, start - at))
        at = start + n
    if at < nbytes:
        out.append((at, nbytes - at))
    return out


def copy_step(x, out, runs, fills=(), fill_value=None, native=HAS_NATIVE):
    """(step, ctx) copying the runs of x into out and setting the `fills`
    ranges of out to fill_value (already cast to out's dtype): the viper
    step where the port has one (native), else loops.copy_bytes over
    memoryviews (the reference)."""
    pattern = None
    if fills:
        item = dtypes.itemsize(out.dtype)
        longest = max(n for _, n in fills)
        pattern = bytearray(longest)
        view = typed_view(pattern, 0, longest // item, out.dtype)
        for i in range(longest // item):
            view[i] = fill_value
    if native:
        from portable_kernels.native import copy_runs_viper

        return copy_runs_viper.prepare(x, out, runs, fills, pattern)
    src, dst = x.buffer, out.buffer
    dsts = [dst[b : b + n] for b, _, n in runs]
    srcs = [src[a : a + n] for _, a, n in runs]
    if fills:
        whole = memoryview(pattern)
        cut = {}  # one view of the pattern per length (border rows of every channel share it)
        for b, n in fills:
            if n not in cut:
                cut[n] = whole[:n]
            dsts.append(dst[b : b + n])
            srcs.append(cut[n])
    return loops.copy_bytes, (dsts, srcs, len(dsts))

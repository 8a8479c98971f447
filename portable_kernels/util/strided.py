"""Strided gathers shared by the shape kernels (slice, select, expand,
transpose, split, flip, ...): out, contiguous, receives the elements of x
found at `offset + sum(i[d] * strides[d])` (strides may be negative).

Elements are moved as raw integer units, so float steps never box a float
and NaN payloads survive: 4-byte words where a small int holds any int32
(64-bit ports), else halfwords (a 32-bit port boxes an int32 read beyond
+-2**30, which most float bit patterns are); 1-byte types move as bytes. The plan is chosen at load time:
- one contiguous run: a single byte-range copy;
- a few contiguous runs (up to _MAX_SLICES): util/runs.copy_step (byte-range
  copies of memoryviews cut at load time, or a viper copy of the runs);
- otherwise rows of units walked by loops.run_rows, or, for 4-byte
  elements where the port has a native emitter, native/gather_words_viper
  (words move as words).
No step here allocates.
"""

import sys

from mpy_et import dtypes
from mpy_et.port import const
from mpy_et.tensor import addressable, typed_view
from portable_kernels.util import checks, loops, runs
from portable_kernels.util.emitters import HAS_NATIVE

_MAX_SLICES = const(64)

try:
    _UNIT = 4 if sys.maxsize > 1 << 32 else 2
except AttributeError:  # a port without sys.maxsize
    _UNIT = 2


def units_of(dtype):
    """How many raw units one element of dtype is."""
    size = dtypes.itemsize(dtype)
    return size // _UNIT if size > _UNIT else 1


def raw_view(t, first=0):
    """(view, units): t's elements from element `first` on, as integer units;
    `units` units make one element."""
    size = dtypes.itemsize(t.dtype)
    count = t.numel - first
    n = units_of(t.dtype)
    if count <= 0:
        return (), n
    unit = size // n
    kind = dtypes.INT if unit == 4 else (dtypes.SHORT if unit == 2 else dtypes.BYTE)
    return typed_view(t.buf, t.offset + first * size, count * n, kind), n


def row_starts(plan, n):
    """The source offset of each of the plan's rows (load time)."""
    nd, sizes, sa = plan[0], plan[1], plan[2]
    idx = [0] * nd
    starts = []
    ia = 0
    for _ in range(n):
        starts.append(ia)
        d = nd - 1
        while d >= 0:
            idx[d] += 1
            ia += sa[d]
            if idx[d] < sizes[d]:
                break
            ia -= sa[d] * sizes[d]
            idx[d] = 0
            d -= 1
    return starts


def gather(x, out, sizes, strides, offset, same_bytes=False):
    """(step, ctx) filling out (of `sizes`, x's dtype) from x, or None when
    out is empty. `same_bytes`: out's dtype may differ but stores x's bytes
    unchanged (bool into uint8)."""
    if out.dtype != x.dtype and not same_bytes:
        checks.same_dtype(x, out)
    if out.numel == 0:
        return None
    units = units_of(x.dtype)
    nd = len(sizes)
    st = [s * units for s in strides] + [1]
    plan, n, step, _ = loops.rows_plan(tuple(sizes) + (units,), st, [0] * (nd + 1))
    nrows = plan[7]
    item = dtypes.itemsize(x.dtype)
    unit_bytes = item // units
    if step == 1 and nrows <= _MAX_SLICES:
        nb = n * unit_bytes
        starts = row_starts(plan, nrows)
        if nrows == 1:  # one run (a slice of the last dim, a select): no lists
            return loops.copy_range(x, offset * item + starts[0] * unit_bytes, out, nb)
        return runs.copy_step(x, out, [(r * nb, offset * item + a * unit_bytes, nb) for r, a in enumerate(starts)])
    if HAS_NATIVE and item == 4 and addressable(x, out):  # words in viper: no boxing on 32-bit boards
        from portable_kernels.native import gather_words_viper

        wplan, wn, wstep, _ = loops.rows_plan(tuple(sizes), list(strides), [0] * nd)
        fast = gather_words_viper.prepare(x, out, wplan, wn, wstep, offset)
        if fast is not None:
            return fast
    dst = raw_view(out)[0]
    if min(strides) < 0:  # reads before `offset` (flip): walk from the start of x
        return loops.run_rows, loops.rows_ctx(_copy_row_from, (raw_view(x)[0], dst, n, step, offset * units), plan)
    return loops.run_rows, loops.rows_ctx(loops.copy_row, (raw_view(x, offset)[0], dst, n, step), plan)


def _copy_row_from(rctx, ia, ib, io):
    """loops.copy_row reading from base + ia."""
    x, o, n, step, base = rctx
    ia += base
    for k in range(io, io + n):
        o[k] = x[ia]
        ia += step


def view_strides(t):
    """Contiguous element strides of t's shape."""
    return loops.contiguous_strides(t.sizes)


def block_copy(x, xoff, xstrides, out, ooff, ostrides, sizes):
    """(step, ctx) copying a block of `sizes` elements from x (at xoff, with
    xstrides) into out (at ooff, with ostrides), both of one dtype; None when
    the block is empty. Walks rows with loops.run_rows; does not allocate."""
    if loops.numel(sizes) == 0:
        return None
    units = units_of(x.dtype)
    plan, n, sa, sb = loops.rows_plan(tuple(sizes) + (units,), [s * units for s in xstrides] + [1], [s * units for s in ostrides] + [1])
    rctx = (raw_view(x, xoff)[0], raw_view(out, ooff)[0], n, sa, sb)
    return loops.run_rows, loops.rows_ctx(_put_row, rctx, plan)


def _put_row(rctx, ia, ib, io):
    """Row of a block copy: out[ib + k * sb] = x[ia + k * sa]."""
    x, o, n, sa, sb = rctx
    for _ in range(n):  # range() with a variable step would allocate
        o[ib] = x[ia]
        ia += sa
        ib += sb


def run_both(ctx):
    """Step: two steps in order (e.g. fill, then copy a block over it)."""
    step1, ctx1, step2, ctx2 = ctx
    step1(ctx1)
    step2(ctx2)

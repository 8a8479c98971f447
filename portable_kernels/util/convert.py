"""Dtype conversion as torch casts: float -> int truncates toward zero,
int -> narrower int wraps, anything -> bool is `!= 0` (NaN is True).
Shared by _to_copy, _to_dim_order_copy and copy. Load-time `converter`
picks one loop; int64 is read and written as two int32 words (low first),
so only float results and int64 values beyond the small-int range box.
"""

from mpy_et import dtypes
from mpy_et.tensor import typed_view
from portable_kernels.util import checks, loops, strided

_KNOWN = (dtypes.BYTE, dtypes.CHAR, dtypes.SHORT, dtypes.INT, dtypes.LONG, dtypes.FLOAT, dtypes.DOUBLE, dtypes.BOOL)


def _words(t):
    return typed_view(t.buf, t.offset, 2 * t.numel, dtypes.INT)


def converter(x, out, sizes, strides, what):
    """(step, ctx) writing x (read at `strides`, broadcast where 0) into out
    of shape `sizes`, converting x's dtype to out's; None when out is empty."""
    for t, name in ((x, "self"), (out, "out")):
        if t.dtype not in _KNOWN:
            checks.fail("%s: %s dtype %s is not supported" % (what, name, dtypes.name(t.dtype)), checks.INVALID_TYPE)
    if x.dtype == out.dtype or (x.dtype == dtypes.BOOL and out.dtype == dtypes.BYTE):
        return strided.gather(x, out, sizes, strides, 0, same_bytes=True)
    if out.numel == 0:
        return None
    plan, n, step, _ = loops.rows_plan(tuple(sizes), strides, [0] * len(sizes))
    src_long = x.dtype == dtypes.LONG
    src = _words(x) if src_long else x.data
    if src_long:
        plan = _double(plan)
        step *= 2
    dst_long = out.dtype == dtypes.LONG
    dst = _words(out) if dst_long else out.data
    src_float = x.dtype in dtypes.FLOATING
    mask = half = 0
    if out.dtype == dtypes.BOOL:
        row = _to_bool
    elif out.dtype in dtypes.FLOATING:
        row = _long_to_float if src_long else _to_float
    elif dst_long:
        row = _float_to_long if src_float else _int_to_long
    elif src_float:
        row = _float_to_int
    elif out.dtype == dtypes.INT or dtypes.itemsize(out.dtype) > dtypes.itemsize(x.dtype) and out.dtype != dtypes.BYTE:
        row = loops.copy_row  # widening (or int64's low word into int32): no wrap needed
    else:
        row = _wrap
    if out.dtype in (dtypes.BYTE, dtypes.CHAR, dtypes.SHORT):
        bits = 8 * dtypes.itemsize(out.dtype)
        mask = (1 << bits) - 1
        half = 0 if out.dtype == dtypes.BYTE else 1 << (bits - 1)
    rctx = (src, dst, n, step) if row is loops.copy_row else (src, dst, n, step, mask, half)
    return loops.run_rows, loops.rows_ctx(row, rctx, plan)


def _double(plan):
    """A rows plan over int64 elements, in int32 words."""
    nd, outer, sa, sb, back_a, back_b, idx, nrows, inner = plan
    return (nd, outer, [2 * s for s in sa], sb, [2 * b for b in back_a], back_b, idx, nrows, inner)


def _to_bool(rctx, ia, ib, io):
    x, o, n, step, _, _ = rctx
    for k in range(io, io + n):
        o[k] = 1 if x[ia] != 0 else 0
        ia += step


def _to_float(rctx, ia, ib, io):
    x, o, n, step, _, _ = rctx
    for k in range(io, io + n):
        o[k] = x[ia] + 0.0
        ia += step


def _long_to_float(rctx, ia, ib, io):
    """int64 words -> float: (hi + carry) * 2**32 + signed lo, which is exact
    for values within +-2**31 whatever the port's float width."""
    x, o, n, step, _, _ = rctx
    for k in range(io, io + n):
        lo = x[ia]
        hi = x[ia + 1]
        if lo < 0:
            hi += 1
        o[k] = hi * 4294967296.0 + lo if hi else lo + 0.0
        ia += step


def _wrap(rctx, ia, ib, io):
    """Into an 8- or 16-bit out: keep the low bits, as torch (x may be
    int64 words: the low word is read)."""
    x, o, n, step, mask, half = rctx
    for k in range(io, io + n):
        o[k] = ((x[ia] + half) & mask) - half
        ia += step


def _float_to_int(rctx, ia, ib, io):
    """Truncate toward zero; 8/16-bit outs wrap. NaN raises ValueError."""
    x, o, n, step, mask, half = rctx
    if mask:
        for k in range(io, io + n):
            o[k] = ((int(x[ia]) + half) & mask) - half
            ia += step
    else:
        for k in range(io, io + n):
            o[k] = int(x[ia])
            ia += step


def _int_to_long(rctx, ia, ib, io):
    x, o, n, step, _, _ = rctx
    k = 2 * io
    for _ in range(n):
        v = x[ia]
        o[k] = v
        o[k + 1] = -1 if v < 0 else 0
        k += 2
        ia += step


def _float_to_long(rctx, ia, ib, io):
    """Truncate toward zero; values beyond +-2**30 are split into words
    (they box an int)."""
    x, o, n, step, _, _ = rctx
    k = 2 * io
    for _ in range(n):
        v = int(x[ia])
        if -1073741824 <= v < 1073741824:
            o[k] = v
            o[k + 1] = -1 if v < 0 else 0
        else:
            lo = v & 0xFFFFFFFF
            o[k] = lo - 4294967296 if lo > 0x7FFFFFFF else lo
            o[k + 1] = v >> 32
        k += 2
        ia += step

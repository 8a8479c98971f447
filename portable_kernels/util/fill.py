"""Filling a tensor with one value (full, full_like, scalar_tensor,
constant_pad_nd). The value is cast to the tensor's dtype at load time as
torch casts it; int64 is written as two int32 words. Steps do not allocate.
On Arm, a tensor of whole 32-bit words of 1-, 2- or 4-byte elements is
filled by native/bool_thumb's word loop.
"""

from array import array

from mpy_et import dtypes
from mpy_et.tensor import addressable, typed_view
from portable_kernels.util import checks
from portable_kernels.util.emitters import HAS_THUMB


def cast(value, dtype, what):
    """value (bool, int or float) as stored in a tensor of dtype."""
    if value is True or value is False:  # MicroPython's bool is not an int subclass
        value = 1 if value else 0
    checks.number(value, what + " value")
    if dtype == dtypes.BOOL:
        return 1 if value else 0
    if dtype in dtypes.FLOATING:
        return float(value)
    if isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
        checks.fail("%s: value %r cannot be stored in %s" % (what, value, dtypes.name(dtype)))
    v = int(value)
    lo, hi = _RANGE[dtype]
    if not lo <= v <= hi:
        checks.fail("%s: value %r does not fit in %s" % (what, value, dtypes.name(dtype)))
    return v


_RANGE = {
    dtypes.BYTE: (0, 255),
    dtypes.CHAR: (-128, 127),
    dtypes.SHORT: (-32768, 32767),
    dtypes.INT: (-2147483648, 2147483647),
    dtypes.LONG: (-(1 << 63), (1 << 63) - 1),
}


def units(t, value):
    """(view, unit values): t's storage as a view whose units repeat `unit values`."""
    if t.dtype == dtypes.LONG:
        lo = value & 0xFFFFFFFF
        return typed_view(t.buf, t.offset, 2 * t.numel, dtypes.INT), (lo - (1 << 32) if lo >= 1 << 31 else lo, value >> 32)
    return t.data, (value,)


def filler(t, value, what):
    """(step, ctx) setting every element of t to value (cast), or None if t is empty."""
    checks.is_tensor(t, what + " out")
    if t.dtype not in dtypes.INFO:
        checks.fail("%s: out dtype %s is not supported" % (what, dtypes.name(t.dtype)), checks.INVALID_TYPE)
    v = cast(value, t.dtype, what)
    if t.numel == 0:
        return None
    view, vals = units(t, v)
    size = dtypes.itemsize(t.dtype)
    if HAS_THUMB and size <= 4 and t.nbytes % 4 == 0 and t.numel >= 8 and addressable(t):
        from portable_kernels.native import bool_thumb  # imported when first needed (load time)

        pattern = bytes(array(dtypes.INFO[t.dtype][2], [v])) * (4 // size)
        return bool_thumb.fill(t, array("i", pattern)[0])
    if len(vals) == 1:
        return fill_step, (view, t.numel, vals[0])
    return fill2_step, (view, 2 * t.numel, vals[0], vals[1])


def fill_step(ctx):
    o, n, v = ctx
    for i in range(n):
        o[i] = v


def fill2_step(ctx):
    o, n, lo, hi = ctx
    for i in range(0, n, 2):
        o[i] = lo
        o[i + 1] = hi

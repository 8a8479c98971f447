"""aten::clamp.out, aten::clamp.Tensor_out: min(max(x, min), max); either
bound may be None.

As torch: NaN passes through, a NaN bound gives NaN, and min > max gives
max everywhere. Tensor bounds broadcast with x: without broadcasting one
pass, otherwise two walks over out (max with min, then min with max).
The integer steps allocate nothing.
"""

import struct

from mpy_et import dim_orders, dtypes, noalloc
from mpy_et.tensor import addressable
from portable_kernels.util import checks, loops
from portable_kernels.util.emitters import HAS_NATIVE, HAS_THUMB

if HAS_THUMB:  # the same rule in Arm assembler, called directly as the step
    from portable_kernels.native import f32_clamp_thumb
elif HAS_NATIVE:
    from array import array

    from portable_kernels.native.f32_clamp_viper import clamp as viper_clamp


def clamp_out(x, lo, hi, out):
    if lo is None and hi is None:
        checks.fail("clamp: at least one of min and max must be given")
    bounds = tuple(v for v in (lo, hi) if v is not None)
    checks.arith_dtype((x,), bounds, out, "clamp")
    checks.out_shape(out, x.sizes, "clamp")
    return clamp_steps(x, out, lo, hi)


def clamp_tensor_out(x, lo, hi, out):
    what = "clamp.Tensor"
    if lo is None and hi is None:
        checks.fail("%s: at least one of min and max must be given" % what)
    bounds = tuple(v for v in (lo, hi) if v is not None)
    checks.arith_dtype((x,) + bounds, (), out, what)
    shape = loops.shape_of((x, lo, hi), what)
    checks.out_shape(out, shape, what)
    if out.numel == 0:
        return None
    o = out.data
    if all(tuple(t.sizes) == shape for t in bounds) and tuple(x.sizes) == shape:
        if hi is None:
            return _tmin, (x.data, lo.data, o, out.numel)
        if lo is None:
            return _tmax, (x.data, hi.data, o, out.numel)
        return _tclamp, (x.data, lo.data, hi.data, o, out.numel)
    walks = []
    src = x
    if lo is not None:
        walks.append(loops.rows_ctx_to(_min_row, (x.data, lo.data, o), shape, x, lo))
        src = out
    if hi is not None:
        walks.append(loops.rows_ctx_to(_max_row, (src.data, hi.data, o), shape, src, hi))
    return _walks, walks


def clamp_steps(x, out, lo, hi):
    if HAS_NATIVE and x.dtype == dtypes.FLOAT and out.dtype == dtypes.FLOAT and x.numel >= 8 and addressable(x, out):  # smaller: bytecode
        lo_bits, hi_bits = _bits(lo), _bits(hi)
        if lo_bits is not False and hi_bits is not False:
            if HAS_THUMB:
                return f32_clamp_thumb.prepare(x, out, lo_bits, hi_bits)
            ctl = (0, 0) if lo is None else (1, _signed(lo_bits))
            ctl += (0, 0) if hi is None else (1, _signed(hi_bits))
            return _clamp_bits, (x.data, out.data, x.numel, array("i", ctl))
    if hi is None:
        return _clamp_min, (x.data, out.data, x.numel, lo)
    if lo is None:
        return _clamp_max, (x.data, out.data, x.numel, hi)
    return _clamp, (x.data, out.data, x.numel, lo, hi)


def _bits(v):
    """A bound's float32 bits; None for no bound, False when the bits would
    not compare as the number does (NaN, or not exactly a float32)."""
    if v is None:
        return None
    b = struct.unpack("<I", struct.pack("<f", v))[0]
    if v != v or struct.unpack("<f", struct.pack("<I", b))[0] != v:
        return False
    return b


def _signed(b):
    return b - 0x100000000 if b >> 31 else b


def _clamp_bits(ctx):
    viper_clamp(ctx[0], ctx[1], ctx[2], ctx[3])


def _clamp(ctx):
    src, dst, n, lo, hi = ctx
    for i in range(n):
        v = src[i]
        if v < lo:
            v = lo
        if v > hi:
            v = hi
        dst[i] = v


def _clamp_min(ctx):
    src, dst, n, lo = ctx
    for i in range(n):
        v = src[i]
        dst[i] = lo if v < lo else v


def _clamp_max(ctx):
    src, dst, n, hi = ctx
    for i in range(n):
        v = src[i]
        dst[i] = hi if v > hi else v


# Tensor bounds: a NaN bound gives NaN (m != m), a NaN x stays NaN.


def _tclamp(ctx):
    x, lo, hi, o, n = ctx
    for i in range(n):
        v = x[i]
        m = lo[i]
        if v < m or m != m:
            v = m
        m = hi[i]
        if v > m or m != m:
            v = m
        o[i] = v


def _tmin(ctx):
    x, lo, o, n = ctx
    for i in range(n):
        v = x[i]
        m = lo[i]
        o[i] = m if v < m or m != m else v


def _tmax(ctx):
    x, hi, o, n = ctx
    for i in range(n):
        v = x[i]
        m = hi[i]
        o[i] = m if v > m or m != m else v


def _walks(walks):
    for w in walks:
        loops.run_rows(w)


def _min_row(rctx, ix, il, io):
    x, lo, o, n, sx, sl = rctx
    for k in range(io, io + n):
        v = x[ix]
        m = lo[il]
        o[k] = m if v < m or m != m else v
        ix += sx
        il += sl


def _max_row(rctx, ix, ih, io):
    x, hi, o, n, sx, sh = rctx
    for k in range(io, io + n):
        v = x[ix]
        m = hi[ih]
        o[k] = m if v > m or m != m else v
        ix += sx
        ih += sh


noalloc.mark(_clamp_bits)


dim_orders.mark_same(clamp_out)  # elementwise: flat over a shared order

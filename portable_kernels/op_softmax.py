"""aten::_softmax.out, numerically stable: exp(x - max) along dim, any dim.
Float only. Allocation in the step: boxed floats only.

float32 on ports with 64-bit native words (emitters.WIDE): f32_softmax_viper
on the bit patterns (within 1 ulp, no float objects); from a row it refuses
(NaN, +inf, |max| >= 2**21) on, the bytecode loop below finishes. With a
single-precision FPU (emitters.FPU: Cortex-M4F / M7) f32_exp_fpu's step,
an assembler function with FPU instructions (within a few ulp); on the
other Thumb-2 boards (Cortex-M3) f32_rows_thumb's integer fixed point
(rows with inf, NaN or |x| >= 64 in bytecode)."""

import math

from mpy_et import dtypes
from mpy_et.tensor import addressable
from portable_kernels.util import checks, loops
from portable_kernels.util.emitters import FPU, THUMB2, WIDE

_FLOATS = (dtypes.FLOAT, dtypes.DOUBLE)


def softmax_out(x, dim, half_to_float, out):
    geom = check_softmax(x, dim, half_to_float, out, "_softmax")
    outer, span, inner = geom
    if WIDE and x.dtype == dtypes.FLOAT and span >= 8 * inner and addressable(x, out):
        from portable_kernels.native.f32_softmax_viper import softmax  # imported when first needed (load time)

        return _viper, (x.data, out.data, outer, span, inner, math.exp, softmax)
    if FPU and x.dtype == dtypes.FLOAT and span >= 8 * inner and addressable(x, out):
        from portable_kernels.native import f32_exp_fpu  # imported when first needed (load time)

        return f32_exp_fpu.softmax(x, out, outer, span // inner, inner)
    if THUMB2 and not FPU and x.dtype == dtypes.FLOAT and span >= 8 * inner and addressable(x, out):
        from portable_kernels.native import f32_rows_thumb as frt  # imported when first needed (load time)

        return _thumb, (x.data, out.data, outer, span, inner, frt)  # 6 items: a 32-byte tuple
    return _softmax, (x.data, out.data) + geom + (math.exp,)


def check_softmax(x, dim, half_to_float, out, what):
    """Shared by _log_softmax: returns (outer, span, inner) with span = dim size * inner."""
    checks.is_tensor(x, what + " self")
    checks.dtype_in(x, _FLOATS, what + " self")
    checks.is_tensor(out, what + " out")
    checks.same_dtype(x, out)
    if half_to_float:
        checks.not_supported("%s: half_to_float is not supported (no float16 tensors)" % what)
    d = checks.norm_dim(dim, len(x.sizes), what)
    checks.out_shape(out, x.sizes, what)
    sizes = x.sizes if x.sizes else (1,)
    inner = loops.numel(sizes[d + 1 :])
    return loops.numel(sizes[:d]), sizes[d] * inner, inner


def _viper(ctx):
    x, o, outer, span, inner, exp, softmax = ctx
    done = softmax(x, o, outer, span // inner, inner)
    if done < outer * inner:
        _rows(x, o, outer, span, inner, exp, done)


def _thumb(ctx):
    """Cortex-M3 rows: f32_rows_thumb.exps writes each row's exps as integers
    and their 64-bit sum; scale writes e * R as float32, R = 2**(b + 31) // sum."""
    x, o, outer, span, inner, frt = ctx
    ctl = frt.CTL  # shared: [2] the row's length, [3] its byte stride
    ctl[2] = span // inner
    ctl[3] = 4 * inner
    exps = frt.exps
    scale = frt.scale
    for r in range(outer * inner):
        b = r // inner
        ctl[0] = 4 * (b * span + r - b * inner)
        if exps(x, o, ctl):
            _rows(x, o, outer, span, inner, math.exp, r, r + 1)
            continue
        s = (ctl[5] & 0xFFFFFFFF) << 32 | (ctl[4] & 0xFFFFFFFF)
        n = ctl[6]  # the sum's bit length
        q = ((1 << (n + 31)) - 1) // s  # 2**31 <= q < 2**32
        ctl[7] = q - 0x100000000 if q > 0x7FFFFFFF else q
        ctl[8] = 159 - n
        scale(o, ctl)


def _softmax(ctx):
    x, o, outer, span, inner, exp = ctx
    _rows(x, o, outer, span, inner, exp, 0)


def _rows(x, o, outer, span, inner, exp, first, last=-1):
    """Rows first.. (to last - 1 when last >= 0; row b * inner + s: elements
    b * span + s + j * inner)."""
    if span == 0:
        return
    for r in range(first, outer * inner if last < 0 else last):
        b = r // inner
        s = b * span + r - b * inner
        e = s + span
        m = x[s]
        for i in range(s + inner, e, inner):
            v = x[i]
            if v > m:
                m = v
        t = 0.0
        for i in range(s, e, inner):
            v = exp(x[i] - m)
            o[i] = v
            t += v
        if t == 0.0:  # some ports' exp(nan) is 0: a row of -inf, or with +inf, is NaN in torch
            t = float("nan")
        for i in range(s, e, inner):
            o[i] = o[i] / t

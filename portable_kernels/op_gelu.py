"""aten::gelu.out, both approximations: "none" x/2 * (1 + erf(x/sqrt(2))),
"tanh" x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))). Float only;
allocation: boxed floats only.

float32 on ports with 64-bit native words (emitters.WIDE): the erf form in
f32_gelu_viper (x * Phi(x)), the tanh form in f32_sigmoid_viper (x *
sigmoid(2y)), on the bit patterns, within 1 ulp of the exact function (also
where 1 + erf / 1 + tanh cancels in the bytecode loops); from an inf/NaN on,
the bytecode loop finishes (in-place safe). With a single-precision FPU
(emitters.FPU: Cortex-M4F / M7) the erf form runs in f32_exp_fpu's
assembler step (erfc to about 1e-7 relative, x * Phi(x)); on other Thumb-2
boards (Cortex-M3) in f32_gelu_thumb's integer fixed point (the same erfc,
within 2 ulp; no float object; from an inf/NaN on, the bytecode loop)."""

import math

from mpy_et import dtypes
from mpy_et.tensor import addressable
from portable_kernels.util import checks
from portable_kernels.util.emitters import FPU, THUMB2, WIDE
from portable_kernels.util.floats import math_fn


def gelu_out(x, approximate, out):
    checks.floating(x, out, "gelu")
    if approximate == "tanh":
        if WIDE and x.dtype == dtypes.FLOAT and x.numel >= 8 and addressable(x, out):
            from portable_kernels.native.f32_sigmoid_viper import unary  # imported when first needed (load time)

            return _viper_tanh, (x.data, out.data, x.numel, math.tanh, unary)
        return _gelu_tanh, (x.data, out.data, x.numel, math.tanh)
    if approximate != "none":
        checks.fail("gelu: approximate must be 'none' or 'tanh', got %r" % (approximate,))
    if FPU and x.dtype == dtypes.FLOAT and x.numel >= 8 and addressable(x, out):
        from portable_kernels.native import f32_exp_fpu  # imported when first needed (load time)

        return f32_exp_fpu.gelu(x, out, x.numel)
    erf = math_fn("erf", "gelu (approximate='none'; export with approximate='tanh' instead)")
    if WIDE and x.dtype == dtypes.FLOAT and x.numel >= 8 and addressable(x, out):
        from portable_kernels.native import f32_gelu_viper  # imported when first needed (load time)

        return _viper_erf, (x.data, out.data, x.numel, erf, f32_gelu_viper.gelu, f32_gelu_viper.TABLE)
    if THUMB2 and x.dtype == dtypes.FLOAT and x.numel >= 8 and addressable(x, out):
        from portable_kernels.native import f32_gelu_thumb  # imported when first needed (load time)

        return _thumb, (x.data, out.data, x.numel, erf, f32_gelu_thumb.gelu, f32_gelu_thumb.CTL)
    return _gelu, (x.data, out.data, x.numel, erf)


def _viper_erf(ctx):
    x, o, n, erf, gelu, table = ctx
    done = gelu(x, o, n, table)
    if done < n:
        _erf_form(x, o, done, n, erf)


def _thumb(ctx):
    x, o, n, erf, gelu, ctl = ctx
    left = gelu(x, o, ctl, n)
    if left:
        _erf_form(x, o, n - left, n, erf)


def _gelu(ctx):
    x, o, n, erf = ctx
    _erf_form(x, o, 0, n, erf)


def _erf_form(x, o, k, n, erf):
    for i in range(k, n):
        v = x[i]
        o[i] = 0.5 * v * (1.0 + erf(v * 0.7071067811865476))  # 1/sqrt(2); literals: no global lookups


def _viper_tanh(ctx):
    x, o, n, tanh, unary = ctx
    done = unary(x, o, n, 2)
    if done < n:
        _tanh_form(x, o, done, n, tanh)


def _gelu_tanh(ctx):
    x, o, n, tanh = ctx
    _tanh_form(x, o, 0, n, tanh)


def _tanh_form(x, o, k, n, tanh):
    for i in range(k, n):
        v = x[i]
        o[i] = 0.5 * v * (1.0 + tanh(v * (0.7978845608028654 + 0.035677408136300125 * v * v)))  # sqrt(2/pi) * (v + 0.044715 v^3)

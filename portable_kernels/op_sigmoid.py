"""aten::sigmoid.out, numerically stable: exp() only sees values <= 0, so it
never overflows (MicroPython's math.exp raises past ~709).

float32 on ports with 64-bit native words (emitters.WIDE): f32_sigmoid_viper
on the bit patterns (within 1 ulp, no float objects); on a Cortex-M7
(emitters.FPU_DP) f32_sigmoid_fpu's doubles, every input, in an assembler
step; on other Thumb-2 boards (Cortex-M3) f32_sigmoid_thumb's fixed point
in assembler (its docstring gives its accuracy); from an inf/NaN on, the
bytecode loop below finishes the tensor (in-place safe)."""

import math

from mpy_et import dtypes
from mpy_et.tensor import addressable
from portable_kernels.util import checks
from portable_kernels.util.emitters import FPU_DP, THUMB2, WIDE

# Below this many elements the bytecode step is as fast and its context smaller.
MIN_VIPER = 8


def sigmoid_out(x, out):
    checks.unary(x, out, "sigmoid", floating=True)
    if (WIDE or THUMB2) and x.dtype == dtypes.FLOAT and out.dtype == dtypes.FLOAT and x.numel >= MIN_VIPER and addressable(x, out):
        if WIDE:  # imported when first needed (load time)
            from portable_kernels.native.f32_sigmoid_viper import unary

            return _viper, (x.data, out.data, x.numel, math.exp, unary)
        if FPU_DP:
            from portable_kernels.native import f32_sigmoid_fpu as m

            return m.prepare(x, out, m.SIGMOID)
        from portable_kernels.native.f32_sigmoid_thumb import sigmoid  # its own step: one call less

        return sigmoid, (x.data, out.data, x.numel, math.exp, _tail)
    return _sigmoid, (x.data, out.data, x.numel, math.exp)


def _viper(ctx):
    # few locals: a MicroPython frame of more than 11 words is allocated on the heap per call
    done = ctx[4](ctx[0], ctx[1], ctx[2], 0)
    if done < ctx[2]:
        _run(ctx[0], ctx[1], done, ctx[2], ctx[3])


def _tail(ctx, k):
    _run(ctx[0], ctx[1], k, ctx[2], ctx[3])


def _sigmoid(ctx):
    src, dst, n, exp = ctx
    _run(src, dst, 0, n, exp)


def _run(src, dst, k, n, exp):
    for i in range(k, n):
        v = src[i]
        if v >= 0.0:
            dst[i] = 1.0 / (1.0 + exp(-v))
        else:  # also NaN: exp(NaN) is NaN
            e = exp(v)
            dst[i] = e / (1.0 + e)

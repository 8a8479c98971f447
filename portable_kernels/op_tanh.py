"""aten::tanh.out (math.tanh saturates to +-1; it never overflows).

float32 on ports with 64-bit native words (emitters.WIDE): f32_sigmoid_viper
on the bit patterns (within 1 ulp, no float objects); on a Cortex-M7
(emitters.FPU_DP) f32_sigmoid_fpu's doubles, every input, in an assembler
step; on other Thumb-2 boards (Cortex-M3) f32_sigmoid_thumb's fixed point
in assembler (its docstring gives its accuracy); from an inf/NaN on, the
bytecode loop below finishes the tensor (in-place safe)."""

import math

from mpy_et import dtypes
from mpy_et.tensor import addressable
from portable_kernels.op_sigmoid import MIN_VIPER
from portable_kernels.util import checks
from portable_kernels.util.emitters import FPU_DP, THUMB2, WIDE


def tanh_out(x, out):
    checks.unary(x, out, "tanh", floating=True)
    if (WIDE or THUMB2) and x.dtype == dtypes.FLOAT and out.dtype == dtypes.FLOAT and x.numel >= MIN_VIPER and addressable(x, out):
        if WIDE:  # imported when first needed (load time)
            from portable_kernels.native.f32_sigmoid_viper import unary

            return _viper, (x.data, out.data, x.numel, math.tanh, unary)
        if FPU_DP:
            from portable_kernels.native import f32_sigmoid_fpu as m

            return m.prepare(x, out, m.TANH)
        from portable_kernels.native.f32_sigmoid_thumb import tanh  # its own step: one call less

        return tanh, (x.data, out.data, x.numel, math.tanh, _tail)
    return _tanh, (x.data, out.data, x.numel, math.tanh)


def _viper(ctx):
    # few locals: a MicroPython frame of more than 11 words is allocated on the heap per call
    done = ctx[4](ctx[0], ctx[1], ctx[2], 1)
    if done < ctx[2]:
        _tail(ctx, done)


def _tail(ctx, k):
    src, dst, n, tanh, _ = ctx
    for i in range(k, n):
        dst[i] = tanh(src[i])


def _tanh(ctx):
    src, dst, n, tanh = ctx
    for i in range(n):
        dst[i] = tanh(src[i])

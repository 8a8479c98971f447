"""aten::relu.out. The integer step allocates nothing; float32 runs on the
bits in viper where the port has a native emitter (f32_clamp_viper; in
assembler on Arm: f32_relu_thumb), and then allocates nothing either."""

from mpy_et import dim_orders, dtypes, noalloc
from mpy_et.tensor import addressable
from portable_kernels.util import checks
from portable_kernels.util.emitters import HAS_NATIVE, HAS_THUMB

if HAS_THUMB:  # the same rule in Arm assembler
    from portable_kernels.native.f32_relu_thumb import relu as viper_relu
elif HAS_NATIVE:
    from portable_kernels.native.f32_clamp_viper import relu as viper_relu


def relu_out(x, out):
    checks.unary(x, out, "relu")
    if HAS_NATIVE and x.dtype == dtypes.FLOAT and x.numel >= 8 and addressable(x, out):  # smaller: bytecode is as fast
        return _relu_bits, (x.data, out.data, x.numel)
    zero = 0.0 if x.dtype in dtypes.FLOATING else 0
    return _relu, (x.data, out.data, x.numel, zero)


def _relu_bits(ctx):
    viper_relu(ctx[0], ctx[1], ctx[2])


def _relu(ctx):
    src, dst, n, zero = ctx
    for i in range(n):
        v = src[i]
        dst[i] = zero if v < zero else v  # NaN passes through, as in torch


noalloc.mark(_relu_bits)


dim_orders.mark_same(relu_out)  # elementwise: flat over a shared order

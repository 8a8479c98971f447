"""aten::relu.out. The integer step allocates nothing."""

from mpy_et import dtypes
from portable_kernels import checks


def relu_out(x, out):
    checks.unary(x, out, "relu")
    zero = 0.0 if x.dtype in dtypes.FLOATING else 0
    return _relu, (x.data, out.data, x.numel, zero)


def _relu(ctx):
    src, dst, n, zero = ctx
    for i in range(n):
        v = src[i]
        dst[i] = zero if v < zero else v  # NaN passes through, as in torch

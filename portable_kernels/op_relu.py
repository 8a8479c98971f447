"""aten::relu.out"""

from mpy_et import dtypes
from portable_kernels import checks

_TYPES = (dtypes.FLOAT, dtypes.DOUBLE, dtypes.INT, dtypes.SHORT, dtypes.CHAR, dtypes.LONG)


def relu_out(x, out):
    checks.dtype_in(x, _TYPES, "relu input")
    checks.same_dtype(x, out)
    checks.same_shape(x, out, "relu")
    zero = 0.0 if x.dtype in dtypes.FLOATING else 0
    return _relu, (x.data, out.data, x.numel, zero)


def _relu(ctx):
    src, dst, n, zero = ctx
    for i in range(n):
        v = src[i]
        dst[i] = zero if v < zero else v  # NaN passes through, as in torch

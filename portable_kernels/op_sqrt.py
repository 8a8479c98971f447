"""aten::sqrt.out: NaN for negative numbers, as in torch (math.sqrt
raises). Float result; allocation: boxed floats only."""

import math

from portable_kernels.util import checks
from portable_kernels.util.floats import NAN


def sqrt_out(x, out):
    checks.unary(x, out, "sqrt", floating=True)
    return _sqrt, (x.data, out.data, x.numel, math.sqrt, NAN)


def _sqrt(ctx):
    x, o, n, sqrt, nan = ctx
    for i in range(n):
        v = x[i]
        o[i] = sqrt(v) if v >= 0 else nan

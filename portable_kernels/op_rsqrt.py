"""aten::rsqrt.out: 1 / sqrt(x); +-inf at +-0, NaN for negative numbers,
as in torch. Float result; allocation: boxed floats only."""

import math

from portable_kernels.util import checks
from portable_kernels.util.floats import INF, NAN


def rsqrt_out(x, out):
    checks.unary(x, out, "rsqrt", floating=True)
    return _rsqrt, (x.data, out.data, x.numel, math.sqrt, math.copysign, INF, NAN)


def _rsqrt(ctx):
    x, o, n, sqrt, copysign, inf, nan = ctx
    for i in range(n):
        v = x[i]
        if v > 0:
            o[i] = 1.0 / sqrt(v)
        elif v == 0:
            o[i] = copysign(inf, v)
        else:
            o[i] = nan

"""aten::reciprocal.out: 1 / x; +-inf at +-0, as in torch. Float result;
allocation: boxed floats only."""

import math

from portable_kernels.util import checks
from portable_kernels.util.floats import INF


def reciprocal_out(x, out):
    checks.unary(x, out, "reciprocal", floating=True)
    return _reciprocal, (x.data, out.data, x.numel, math.copysign, INF)


def _reciprocal(ctx):
    x, o, n, copysign, inf = ctx
    for i in range(n):
        v = x[i]
        o[i] = 1.0 / v if v else copysign(inf, v)

"""aten::erf.out (math.erf). Float result; allocation: boxed floats only."""

from portable_kernels.util import checks
from portable_kernels.util.floats import math_fn


def erf_out(x, out):
    checks.unary(x, out, "erf", floating=True)
    return _erf, (x.data, out.data, x.numel, math_fn("erf", "erf"))


def _erf(ctx):
    x, o, n, erf = ctx
    for i in range(n):
        v = x[i]
        o[i] = erf(v)

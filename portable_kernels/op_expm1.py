"""aten::expm1.out: exp(x) - 1, exact near 0; inf past the largest
finite result. Float result; allocation: boxed floats only."""

from portable_kernels.util import checks
from portable_kernels.util.floats import EXP_MAX, INF, math_fn


def expm1_out(x, out):
    r = checks.unary(x, out, "expm1", floating=True)
    return _expm1, (x.data, out.data, x.numel, math_fn("expm1", "expm1"), EXP_MAX[r], INF)


def _expm1(ctx):
    x, o, n, expm1, big, inf = ctx
    for i in range(n):
        v = x[i]
        o[i] = inf if v > big else expm1(v)

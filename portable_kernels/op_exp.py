"""aten::exp.out. Past the largest finite result the step writes inf
(math.exp raises there on MicroPython and CPython). Float result;
allocation: boxed floats only."""

import math

from portable_kernels.util import checks
from portable_kernels.util.floats import EXP_MAX, INF


def exp_out(x, out):
    r = checks.unary(x, out, "exp", floating=True)
    return _exp, (x.data, out.data, x.numel, math.exp, EXP_MAX[r], INF)


def _exp(ctx):
    x, o, n, exp, big, inf = ctx
    for i in range(n):
        v = x[i]
        o[i] = inf if v > big else exp(v)

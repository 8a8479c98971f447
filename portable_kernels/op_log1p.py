"""aten::log1p.out: log(1 + x), accurate near 0 (log(u) * x / (u - 1)
with u = 1 + x, as no MicroPython port has math.log1p); -inf at -1,
NaN below. Float result; allocation: boxed floats only."""

import math

from portable_kernels.util import checks
from portable_kernels.util.floats import INF, NAN


def log1p_out(x, out):
    checks.unary(x, out, "log1p", floating=True)
    return _log1p, (x.data, out.data, x.numel, math.log, INF, NAN)


def _log1p(ctx):
    x, o, n, log, inf, nan = ctx
    for i in range(n):
        v = x[i]
        if v > -1.0:
            u = 1.0 + v
            if u == 1.0 or u == inf:
                o[i] = v
            else:
                o[i] = log(u) * (v / (u - 1.0))
        else:
            o[i] = -inf if v == -1.0 else nan

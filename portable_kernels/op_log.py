"""aten::log.out: log(0) is -inf and log of a negative number NaN, as in
torch (math.log raises on both). Float result; allocation: boxed floats only."""

import math

from portable_kernels.util import checks
from portable_kernels.util.floats import INF, NAN


def log_out(x, out):
    checks.unary(x, out, "log", floating=True)
    return _log, (x.data, out.data, x.numel, math.log, -INF, NAN)


def _log(ctx):
    x, o, n, log, ninf, nan = ctx
    for i in range(n):
        v = x[i]
        if v > 0:
            o[i] = log(v)
        else:
            o[i] = ninf if v == 0 else nan

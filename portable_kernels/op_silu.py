"""aten::silu.out: x * sigmoid(x), numerically stable (exp only sees values
<= 0). Float only; allocation: boxed floats only."""

import math

from portable_kernels.util import checks


def silu_out(x, out):
    checks.floating(x, out, "silu")
    return _silu, (x.data, out.data, x.numel, math.exp)


def _silu(ctx):
    x, o, n, exp = ctx
    for i in range(n):
        v = x[i]
        if v >= 0.0:
            o[i] = v / (1.0 + exp(-v))
        else:  # also NaN: exp(NaN) is NaN
            e = exp(v)
            o[i] = v * e / (1.0 + e)

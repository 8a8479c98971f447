"""aten::sigmoid.out, numerically stable: exp() only sees values <= 0, so it
never overflows (MicroPython's math.exp raises past ~709)."""

import math

from portable_kernels import checks


def sigmoid_out(x, out):
    checks.unary(x, out, "sigmoid", floating=True)
    return _sigmoid, (x.data, out.data, x.numel, math.exp)


def _sigmoid(ctx):
    src, dst, n, exp = ctx
    for i in range(n):
        v = src[i]
        if v >= 0.0:
            dst[i] = 1.0 / (1.0 + exp(-v))
        else:  # also NaN: exp(NaN) is NaN
            e = exp(v)
            dst[i] = e / (1.0 + e)

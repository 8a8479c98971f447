"""aten::hardsigmoid.out: clamp(x + 3, 0, 6) / 6 (NaN stays NaN). Float only;
allocation: boxed floats only."""

from portable_kernels.util import checks


def hardsigmoid_out(x, out):
    checks.floating(x, out, "hardsigmoid")
    return _hardsigmoid, (x.data, out.data, x.numel)


def _hardsigmoid(ctx):
    x, o, n = ctx
    for i in range(n):
        v = x[i]
        if v <= -3.0:
            o[i] = 0.0
        elif v >= 3.0:
            o[i] = 1.0
        else:
            o[i] = (v + 3.0) / 6.0

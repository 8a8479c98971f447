"""aten::leaky_relu.out: x if x > 0 else negative_slope * x (NaN stays NaN).
Float only; allocation: boxed floats only."""

from portable_kernels.util import checks


def leaky_relu_out(x, negative_slope, out):
    checks.floating(x, out, "leaky_relu")
    slope = float(checks.number(negative_slope, "leaky_relu negative_slope"))
    return _leaky_relu, (x.data, out.data, x.numel, slope)


def _leaky_relu(ctx):
    x, o, n, slope = ctx
    for i in range(n):
        v = x[i]
        o[i] = v if v > 0.0 else v * slope

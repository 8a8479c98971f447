"""aten::elu.out: scale * x for x > 0, else alpha * scale * (exp(input_scale
* x) - 1) (expm1: exact near 0). Also what selu and celu export to. Float
only; allocation: boxed floats only."""

from portable_kernels.util import checks
from portable_kernels.util.floats import EXP_MAX, INF, math_fn


def elu_out(x, alpha, scale, input_scale, out):
    r = checks.floating(x, out, "elu")
    a = float(checks.number(alpha, "elu alpha"))
    s = float(checks.number(scale, "elu scale"))
    k = float(checks.number(input_scale, "elu input_scale"))
    # a negative input_scale turns large negative x into exp overflow
    big = EXP_MAX[r]
    return _elu, (x.data, out.data, x.numel, a * s, s, k, math_fn("expm1", "elu"), big, INF * a * s)


def _elu(ctx):
    x, o, n, as_, s, k, expm1, big, inf = ctx
    for i in range(n):
        v = x[i]
        if v > 0.0:
            o[i] = v * s
        else:
            e = v * k
            o[i] = inf if e > big else as_ * expm1(e)

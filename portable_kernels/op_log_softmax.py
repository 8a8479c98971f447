"""aten::_log_softmax.out, numerically stable: x - max - log(sum(exp(x - max)))
along dim, any dim. Float only. Allocation in the step: boxed floats only."""

import math

from portable_kernels.op_softmax import check_softmax


def log_softmax_out(x, dim, half_to_float, out):
    geom = check_softmax(x, dim, half_to_float, out, "_log_softmax")
    return _log_softmax, (x.data, out.data) + geom + (math.exp, math.log)


def _log_softmax(ctx):
    x, o, outer, span, inner, exp, log = ctx
    for b in range(0, outer * span, span):
        for s in range(b, b + inner):
            e = s + span
            m = x[s]
            for i in range(s + inner, e, inner):
                v = x[i]
                if v > m:
                    m = v
            t = 0.0
            for i in range(s, e, inner):
                t += exp(x[i] - m)
            t = log(t)  # t >= 1 (or NaN): no domain error
            for i in range(s, e, inner):
                o[i] = x[i] - m - t

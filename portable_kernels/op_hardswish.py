"""aten::hardswish.out: x * clamp(x + 3, 0, 6) / 6 (NaN stays NaN; -inf gives
NaN, as torch). Float only; allocation: boxed floats only."""

from portable_kernels.util import checks


def hardswish_out(x, out):
    checks.floating(x, out, "hardswish")
    return _hardswish, (x.data, out.data, x.numel)


def _hardswish(ctx):
    x, o, n = ctx
    for i in range(n):
        v = x[i]
        if v <= -3.0:
            o[i] = v * 0.0  # -0.0, and NaN for -inf (-inf * 0), as torch
        elif v >= 3.0:
            o[i] = v
        else:
            o[i] = v * (v + 3.0) / 6.0

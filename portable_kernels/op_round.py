"""aten::round.out: x rounded to the nearest integer, halves to even (as torch). inf and NaN pass through; integer tensors
are copied unchanged. Allocation: boxed floats (and a Python int per float
element); none for int32."""

from mpy_et import dtypes
from portable_kernels.util import checks


def round_out(x, out):
    r = checks.unary(x, out, "round")
    if r not in dtypes.FLOATING:
        return _copy, (x.data, out.data, x.numel)
    return _round, (x.data, out.data, x.numel, round)


def _round(ctx):
    x, o, n, rnd = ctx
    for i in range(n):
        v = x[i]
        o[i] = rnd(v) if v - v == 0 else v  # v - v is NaN for inf and NaN


def _copy(ctx):
    x, o, n = ctx
    for i in range(n):
        o[i] = x[i]

"""aten::trunc.out: x rounded toward zero. inf and NaN pass through; integer tensors
are copied unchanged. Allocation: boxed floats (and a Python int per float
element); none for int32."""

import math

from mpy_et import dtypes
from portable_kernels.util import checks


def trunc_out(x, out):
    r = checks.unary(x, out, "trunc")
    if r not in dtypes.FLOATING:
        return _copy, (x.data, out.data, x.numel)
    return _trunc, (x.data, out.data, x.numel, math.trunc)


def _trunc(ctx):
    x, o, n, trunc = ctx
    for i in range(n):
        v = x[i]
        o[i] = trunc(v) if v - v == 0 else v  # v - v is NaN for inf and NaN


def _copy(ctx):
    x, o, n = ctx
    for i in range(n):
        o[i] = x[i]

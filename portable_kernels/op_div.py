"""aten::div.out, aten::div.Scalar_out: true division (the result is floating).

x / 0 gives +-inf or nan as in torch: the fast loop runs under try, and on
ZeroDivisionError the rest of the tensor, from the failing element on, is
computed with a checked division.
"""

import math

from mpy_et import dtypes
from portable_kernels import checks, loops

_INF = math.inf
_NAN = math.nan


def _div_dtype(tensors, scalars, out, what):
    r = checks.arith_dtype(tensors, scalars, out, what)
    if r not in dtypes.FLOATING:
        checks.can_cast(dtypes.FLOAT, out.dtype, what + " (true division of integers)")


def div_out(a, b, out):
    _div_dtype((a, b), (), out, "div")
    plan = loops.broadcast(a, b, out, "div")
    if plan is None:
        return _div, (a.data, b.data, out.data, out.numel)
    plan, n, sa, sb = plan
    return loops.run_rows, loops.rows_ctx(_div_row, (a.data, b.data, out.data, n, sa, sb), plan)


def div_scalar_out(a, other, out):
    _div_dtype((a,), (other,), out, "div.Scalar")
    checks.out_shape(out, a.sizes, "div.Scalar")
    if other == 0:
        return _div_by_zero, (a.data, out.data, out.numel, other)
    return _div_scalar, (a.data, out.data, out.numel, other)


def safe_div(x, y):
    """x / y with IEEE results for y == 0 (not a step: called only after a ZeroDivisionError)."""
    if y:
        return x / y
    if x != x or not x:
        return _NAN
    return _INF if (x > 0) == (math.copysign(1.0, y) > 0) else -_INF


def _div(ctx):
    a, b, o, n = ctx
    i = 0
    try:
        for i in range(n):
            o[i] = a[i] / b[i]
    except ZeroDivisionError:
        for k in range(i, n):
            o[k] = safe_div(a[k], b[k])


def _div_row(rctx, ia, ib, io):
    a, b, o, n, sa, sb = rctx
    k = io
    try:
        for k in range(io, io + n):
            o[k] = a[ia] / b[ib]
            ia += sa
            ib += sb
    except ZeroDivisionError:
        for q in range(k, io + n):
            o[q] = safe_div(a[ia], b[ib])
            ia += sa
            ib += sb


def _div_scalar(ctx):
    a, o, n, c = ctx
    for i in range(n):
        o[i] = a[i] / c


def _div_by_zero(ctx):
    a, o, n, c = ctx
    for i in range(n):
        o[i] = safe_div(a[i], c)

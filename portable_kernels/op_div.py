"""aten::div.out, aten::div.Scalar_out: true division (the result is
floating); aten::div.out_mode, aten::div.Scalar_mode_out: rounding_mode
None (true division), "trunc" or "floor", in the inputs' type.

Float x / 0 gives +-inf or nan as in torch: the fast loop runs under try,
and on ZeroDivisionError the rest of the tensor, from the failing element
on, is computed with a checked division. Integer division by zero raises
ZeroDivisionError, as torch raises (at load when the divisor is a scalar).
Float floor division is Python's // (torch's algorithm: fmod based);
trunc rounds the quotient to out's type first, as torch computes it there.
Integer results wrap as in torch (INT32_MIN // -1).
"""

import math

from mpy_et import dtypes
from portable_kernels.util import checks, loops

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


def div_out_mode(a, b, rounding_mode, out):
    if rounding_mode is None:
        return div_out(a, b, out)
    what = "div.out_mode"
    r = checks.arith_dtype((a, b), (), out, what)
    steps = _mode_steps(rounding_mode, r, what)
    plan = loops.broadcast(a, b, out, what)
    if plan is None:
        ctx = (a.data, b.data, out.data, out.numel)
        return loops.int_steps(out, r, steps[0], ctx)
    plan, n, sa, sb = plan
    ctx = loops.rows_ctx(steps[1], (a.data, b.data, out.data, n, sa, sb), plan)
    return loops.int_steps(out, r, loops.run_rows, ctx)


def div_scalar_mode_out(a, other, rounding_mode, out):
    if rounding_mode is None:
        return div_scalar_out(a, other, out)
    what = "div.Scalar_mode_out"
    r = checks.arith_dtype((a,), (other,), out, what)
    checks.out_shape(out, a.sizes, what)
    step = _mode_steps(rounding_mode, r, what)[2]
    other = checks.scalar_as(other, r)  # as torch: a float32 op sees float32(other)
    if other == 0:
        if r not in dtypes.FLOATING:
            checks.fail("%s: integer division by zero (torch raises ZeroDivisionError)" % what)
        step = _div_by_zero
    ctx = (a.data, out.data, out.numel, other)
    return loops.int_steps(out, r, step, ctx)


def _mode_steps(mode, compute, what):
    """(same-shape, row, scalar) steps for a rounding mode and compute type."""
    if mode not in ("trunc", "floor"):
        checks.fail("%s: rounding_mode must be None, 'trunc' or 'floor', got %r" % (what, mode))
    if compute in dtypes.FLOATING:
        return (_ftrunc, _ftrunc_row, _ftrunc_scalar) if mode == "trunc" else (_ffloor, _ffloor_row, _ffloor_scalar)
    return (_itrunc, _itrunc_row, _itrunc_scalar) if mode == "trunc" else (_ifloor, _ifloor_row, _ifloor_scalar)


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


def _trunc(v):
    """trunc of a float, inf and NaN unchanged (only after a ZeroDivisionError)."""
    return math.trunc(v) if v - v == 0 else v


def _ffloor(ctx):
    a, b, o, n = ctx
    i = 0
    try:
        for i in range(n):
            o[i] = a[i] // b[i]
    except ZeroDivisionError:  # torch: x / 0 where the divisor is zero
        for k in range(i, n):
            y = b[k]
            o[k] = a[k] // y if y else safe_div(a[k], y)


def _ffloor_row(rctx, ia, ib, io):
    a, b, o, n, sa, sb = rctx
    for k in range(io, io + n):
        y = b[ib]
        o[k] = a[ia] // y if y else safe_div(a[ia], y)
        ia += sa
        ib += sb


def _ffloor_scalar(ctx):
    a, o, n, c = ctx
    for i in range(n):
        o[i] = a[i] // c


def _ftrunc(ctx):
    a, b, o, n = ctx
    trunc = math.trunc
    i = 0
    try:
        for i in range(n):
            o[i] = a[i] / b[i]
            v = o[i]  # the quotient in out's type, as torch truncates it
            if v - v == 0:
                o[i] = trunc(v)
    except ZeroDivisionError:
        for k in range(i, n):
            o[k] = _trunc(safe_div(a[k], b[k]))


def _ftrunc_row(rctx, ia, ib, io):
    a, b, o, n, sa, sb = rctx
    for k in range(io, io + n):
        y = b[ib]
        o[k] = a[ia] / y if y else safe_div(a[ia], y)
        v = o[k]
        if v - v == 0:
            o[k] = math.trunc(v)
        ia += sa
        ib += sb


def _ftrunc_scalar(ctx):
    a, o, n, c = ctx
    trunc = math.trunc
    for i in range(n):
        o[i] = a[i] / c
        v = o[i]
        if v - v == 0:
            o[i] = trunc(v)


def _ifloor(ctx):
    a, b, o, n = ctx
    for i in range(n):
        o[i] = a[i] // b[i]


def _ifloor_row(rctx, ia, ib, io):
    a, b, o, n, sa, sb = rctx
    for k in range(io, io + n):
        o[k] = a[ia] // b[ib]
        ia += sa
        ib += sb


def _ifloor_scalar(ctx):
    a, o, n, c = ctx
    for i in range(n):
        o[i] = a[i] // c


def _itrunc(ctx):
    a, b, o, n = ctx
    for i in range(n):
        x = a[i]
        y = b[i]
        q = x // y
        if q < 0 and q * y != x:  # floor went one below zero-ward
            q += 1
        o[i] = q


def _itrunc_row(rctx, ia, ib, io):
    a, b, o, n, sa, sb = rctx
    for k in range(io, io + n):
        x = a[ia]
        y = b[ib]
        q = x // y
        if q < 0 and q * y != x:
            q += 1
        o[k] = q
        ia += sa
        ib += sb


def _itrunc_scalar(ctx):
    a, o, n, c = ctx
    for i in range(n):
        x = a[i]
        q = x // c
        if q < 0 and q * c != x:
            q += 1
        o[i] = q

"""aten::pow.Tensor_Tensor_out, aten::pow.Tensor_Scalar_out, aten::pow.Scalar_out.

Floats: math.pow in the fast loop; where it raises (a negative base with a
fractional exponent, 0 to a negative power, overflow) the rest of the
tensor goes through safe_pow, which gives torch's NaN or +-inf. Exponent 2
(variance, norms) is a product and 0.5 a square root. Integers: exact
Python powers, wrapped to the dtype as in torch; a negative integer
exponent gives torch's 1, -1 or 0 (a Scalar one fails at load, as torch).
"""

import math

from mpy_et import dtypes
from portable_kernels.util import checks, loops
from portable_kernels.util.floats import INF, NAN


def pow_tensor_tensor_out(a, b, out):
    what = "pow.Tensor_Tensor"
    r = checks.arith_dtype((a, b), (), out, what)
    plan = loops.broadcast(a, b, out, what)
    same, row = (_pow, _pow_row) if r in dtypes.FLOATING else (_ipow, _ipow_row)
    if plan is None:
        ctx = (a.data, b.data, out.data, out.numel)
        return loops.int_steps(out, r, same, ctx)
    plan, n, sa, sb = plan
    ctx = loops.rows_ctx(row, (a.data, b.data, out.data, n, sa, sb), plan)
    return loops.int_steps(out, r, loops.run_rows, ctx)


def pow_tensor_scalar_out(a, exponent, out):
    what = "pow.Tensor_Scalar"
    r = checks.arith_dtype((a,), (exponent,), out, what)
    checks.out_shape(out, a.sizes, what)
    if r in dtypes.FLOATING:
        if exponent == 2:
            step = _square
        elif exponent == 0.5:
            step = _sqrt
        else:
            step = _pow_scalar
            exponent = float(exponent)
    else:
        if exponent < 0:
            checks.fail("%s: integers to negative integer powers are not allowed (exponent %r)" % (what, exponent), checks.INVALID_ARGUMENT)
        step = _square if exponent == 2 else _ipow_scalar
    ctx = (a.data, out.data, out.numel, exponent)
    return loops.int_steps(out, r, step, ctx)


def pow_scalar_out(base, b, out):
    what = "pow.Scalar"
    r = checks.arith_dtype((b,), (base,), out, what)
    checks.out_shape(out, b.sizes, what)
    step = _base_pow if r in dtypes.FLOATING else _ibase_pow
    if r in dtypes.FLOATING:
        base = float(base)
    ctx = (b.data, out.data, out.numel, base)
    return loops.int_steps(out, r, step, ctx)


def safe_pow(x, y):
    """x ** y with torch's results where math.pow raises (not a step: called
    only after an exception)."""
    try:
        return math.pow(x, y)
    except (ValueError, OverflowError):
        pass
    odd = y == math.floor(y) and y % 2 == 1 if y - y == 0 else False
    if x == 0:  # zero to a negative power
        return -INF if odd and math.copysign(1.0, x) < 0 else INF
    if x < 0 and y - y == 0 and y != math.floor(y):
        return NAN
    return -INF if x < 0 and odd else INF  # overflow


def _pow(ctx):
    a, b, o, n = ctx
    pw = math.pow
    i = 0
    try:
        for i in range(n):
            o[i] = pw(a[i], b[i])
    except (ValueError, OverflowError):
        for k in range(i, n):
            o[k] = safe_pow(a[k], b[k])


def _pow_row(rctx, ia, ib, io):
    a, b, o, n, sa, sb = rctx
    pw = math.pow
    k = io
    try:
        for k in range(io, io + n):
            o[k] = pw(a[ia], b[ib])
            ia += sa
            ib += sb
    except (ValueError, OverflowError):
        for q in range(k, io + n):
            o[q] = safe_pow(a[ia], b[ib])
            ia += sa
            ib += sb


def _pow_scalar(ctx):
    a, o, n, e = ctx
    pw = math.pow
    i = 0
    try:
        for i in range(n):
            o[i] = pw(a[i], e)
    except (ValueError, OverflowError):
        for k in range(i, n):
            o[k] = safe_pow(a[k], e)


def _base_pow(ctx):
    b, o, n, c = ctx
    pw = math.pow
    i = 0
    try:
        for i in range(n):
            o[i] = pw(c, b[i])
    except (ValueError, OverflowError):
        for k in range(i, n):
            o[k] = safe_pow(c, b[k])


def _square(ctx):
    a, o, n, _ = ctx
    for i in range(n):
        v = a[i]
        o[i] = v * v


def _sqrt(ctx):
    a, o, n, _ = ctx
    sqrt = math.sqrt
    for i in range(n):
        v = a[i]
        o[i] = sqrt(v) if v >= 0 else NAN


def _ipow1(x, y):
    """torch's integer power for a negative exponent."""
    if x == 1:
        return 1
    if x == -1:
        return -1 if y & 1 else 1
    return 0


def _ipow(ctx):
    a, b, o, n = ctx
    for i in range(n):
        y = b[i]
        o[i] = a[i] ** y if y >= 0 else _ipow1(a[i], y)


def _ipow_row(rctx, ia, ib, io):
    a, b, o, n, sa, sb = rctx
    for k in range(io, io + n):
        y = b[ib]
        o[k] = a[ia] ** y if y >= 0 else _ipow1(a[ia], y)
        ia += sa
        ib += sb


def _ipow_scalar(ctx):
    a, o, n, e = ctx
    for i in range(n):
        o[i] = a[i] ** e


def _ibase_pow(ctx):
    b, o, n, c = ctx
    for i in range(n):
        y = b[i]
        o[i] = c**y if y >= 0 else _ipow1(c, y)

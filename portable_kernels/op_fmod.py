"""aten::fmod.Tensor_out, aten::fmod.Scalar_out: a - b * trunc(a / b), the
sign of the dividend (C's fmod). Float fmod(x, 0) and fmod(+-inf, y) are
NaN as in torch;
integer fmod by 0 raises ZeroDivisionError as torch does (at load for a
scalar). Allocation: none for int32; boxed floats for floats."""

import math

from mpy_et import dtypes
from portable_kernels.util import checks, loops
from portable_kernels.util.floats import NAN


def fmod_tensor_out(a, b, out):
    what = "fmod.Tensor"
    r = checks.arith_dtype((a, b), (), out, what)
    loops.broadcast(a, b, out, what)  # checks the shapes
    row = _fmod_row if r in dtypes.FLOATING else _ifmod_row
    return loops.run_rows, loops.rows_ctx_to(row, (a.data, b.data, out.data), tuple(out.sizes), a, b)


def fmod_scalar_out(a, other, out):
    what = "fmod.Scalar"
    r = checks.arith_dtype((a,), (other,), out, what)
    checks.out_shape(out, a.sizes, what)
    if other == 0:
        if r not in dtypes.FLOATING:
            checks.fail("%s: integer modulo by zero (torch raises ZeroDivisionError)" % what)
        return _fill, (out.data, out.numel, NAN)
    if r in dtypes.FLOATING:
        return _fmod_scalar, (a.data, out.data, out.numel, checks.scalar_as(other, r))
    return _ifmod_scalar, (a.data, out.data, out.numel, other)


def _fmod_row(rctx, ia, ib, io):
    a, b, o, n, sa, sb = rctx
    fmod = math.fmod
    for k in range(io, io + n):
        x = a[ia]
        y = b[ib]
        o[k] = fmod(x, y) if y and x - x == 0 else NAN  # math.fmod raises for inf x
        ia += sa
        ib += sb


def _ifmod_row(rctx, ia, ib, io):
    a, b, o, n, sa, sb = rctx
    for k in range(io, io + n):
        x = a[ia]
        y = b[ib]
        m = x % y  # floor modulo, then to the dividend's sign
        if m and (m < 0) != (x < 0):
            m -= y
        o[k] = m
        ia += sa
        ib += sb


def _fmod_scalar(ctx):
    a, o, n, c = ctx
    fmod = math.fmod
    for i in range(n):
        v = a[i]
        o[i] = fmod(v, c) if v - v == 0 else NAN


def _ifmod_scalar(ctx):
    a, o, n, c = ctx
    for i in range(n):
        x = a[i]
        m = x % c
        if m and (m < 0) != (x < 0):
            m -= c
        o[i] = m


def _fill(ctx):
    o, n, v = ctx
    for i in range(n):
        o[i] = v

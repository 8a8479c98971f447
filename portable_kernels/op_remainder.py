"""aten::remainder.Tensor_out, aten::remainder.Scalar_out: a - b * floor(a / b),
the sign of the divisor (Python's %, torch's algorithm); what `x % n`
exports to. Float x % 0 is NaN as in torch (Python raises: the rest of the
tensor from that element on goes through a checked loop); integer % 0
raises ZeroDivisionError as torch does (at load for a scalar). Allocation:
none for int32; boxed floats for floats."""

from mpy_et import dtypes
from portable_kernels.util import checks, loops
from portable_kernels.util.floats import NAN


def remainder_tensor_out(a, b, out):
    what = "remainder.Tensor"
    r = checks.arith_dtype((a, b), (), out, what)
    plan = loops.broadcast(a, b, out, what)
    if plan is None:
        return _rem, (a.data, b.data, out.data, out.numel)
    plan, n, sa, sb = plan
    return loops.run_rows, loops.rows_ctx(_rem_row if r in dtypes.FLOATING else _irem_row, (a.data, b.data, out.data, n, sa, sb), plan)


def remainder_scalar_out(a, other, out):
    what = "remainder.Scalar"
    r = checks.arith_dtype((a,), (other,), out, what)
    checks.out_shape(out, a.sizes, what)
    if other == 0:
        if r not in dtypes.FLOATING:
            checks.fail("%s: integer modulo by zero (torch raises ZeroDivisionError)" % what)
        return _fill, (out.data, out.numel, NAN)
    return _rem_scalar, (a.data, out.data, out.numel, checks.scalar_as(other, r))


def _rem(ctx):
    a, b, o, n = ctx
    i = 0
    try:
        for i in range(n):
            o[i] = a[i] % b[i]
    except ZeroDivisionError:  # float % 0 is NaN (integers raise again below, as torch)
        for k in range(i, n):
            y = b[k]
            o[k] = a[k] % y if y or isinstance(y, int) else NAN


def _rem_row(rctx, ia, ib, io):
    a, b, o, n, sa, sb = rctx
    for k in range(io, io + n):
        y = b[ib]
        o[k] = a[ia] % y if y else NAN
        ia += sa
        ib += sb


def _irem_row(rctx, ia, ib, io):
    a, b, o, n, sa, sb = rctx
    for k in range(io, io + n):
        o[k] = a[ia] % b[ib]
        ia += sa
        ib += sb


def _rem_scalar(ctx):
    a, o, n, c = ctx
    for i in range(n):
        o[i] = a[i] % c


def _fill(ctx):
    o, n, v = ctx
    for i in range(n):
        o[i] = v

"""aten::mul.out, aten::mul.Scalar_out: elementwise product with broadcasting.

Integer results wrap to the compute type as in torch (loops.int_steps);
integer steps allocate nothing while products stay within MicroPython's
small-int range (+-2**30 on 32-bit ports).
"""

from mpy_et import dim_orders
from portable_kernels.util import checks, f32_arith, loops


def mul_out(a, b, out):
    r = checks.arith_dtype((a, b), (), out, "mul")
    plan = loops.broadcast(a, b, out, "mul")
    fast = f32_arith.steps(a, b, out, f32_arith.MUL, plan)
    if fast:
        return fast
    if plan is None:
        ctx = (a.data, b.data, out.data, out.numel)
        return loops.int_steps(out, r, _mul, ctx)
    plan, n, sa, sb = plan
    ctx = loops.rows_ctx(_mul_row, (a.data, b.data, out.data, n, sa, sb), plan)
    return loops.int_steps(out, r, loops.run_rows, ctx)


def mul_scalar_out(a, other, out):
    r = checks.arith_dtype((a,), (other,), out, "mul.Scalar")
    checks.out_shape(out, a.sizes, "mul.Scalar")
    fast = f32_arith.scalar_steps(a, other, out, f32_arith.MUL)
    if fast:
        return fast
    ctx = (a.data, out.data, out.numel, other)
    return loops.int_steps(out, r, _mul_scalar, ctx)


def _mul(ctx):
    a, b, o, n = ctx
    for i in range(n):
        o[i] = a[i] * b[i]


def _mul_row(rctx, ia, ib, io):
    a, b, o, n, sa, sb = rctx
    if sb == 0:  # b constant along the row (a per-channel scale): one read
        c = b[ib]
        for k in range(io, io + n):
            o[k] = a[ia] * c
            ia += sa
        return
    for k in range(io, io + n):
        o[k] = a[ia] * b[ib]
        ia += sa
        ib += sb


def _mul_scalar(ctx):
    a, o, n, c = ctx
    for i in range(n):
        o[i] = a[i] * c


dim_orders.mark_same(mul_out, mul_scalar_out)  # elementwise: flat over a shared order

"""aten::add.out, aten::add.Scalar_out.

out = self + alpha * other, with numpy broadcasting. The alpha loops are
shared with sub (alpha negated) and rsub. Integer results wrap to the
compute type as in torch (loops.int_steps); integer steps allocate nothing
while values stay within MicroPython's small-int range (+-2**30 on 32-bit
ports).
"""

from mpy_et import dim_orders
from portable_kernels.util import checks, f32_arith, loops


def add_out(a, b, alpha, out):
    r = checks.arith_dtype((a, b), (), out, "add")
    checks.alpha(alpha, r, "add")
    plan = loops.broadcast(a, b, out, "add")
    if alpha == 1 or alpha == -1:
        fast = f32_arith.steps(a, b, out, f32_arith.ADD if alpha == 1 else f32_arith.SUB, plan)
        if fast:
            return fast
    return alpha_steps(a, b, out, alpha, plan, _add, r)


def add_scalar_out(a, other, alpha, out):
    r = checks.arith_dtype((a,), (other,), out, "add.Scalar")
    checks.alpha(alpha, r, "add.Scalar")
    checks.out_shape(out, a.sizes, "add.Scalar")
    fast = f32_arith.scalar_steps(a, alpha * other, out, f32_arith.ADD)
    if fast:
        return fast
    return scalar_step(a, out, alpha * other, r)


def alpha_steps(a, b, out, alpha, plan, same, compute):
    """Steps for a + alpha * b; `same` handles alpha == 1 without broadcasting."""
    if plan is None:
        if alpha == 1:
            ctx = (a.data, b.data, out.data, out.numel)
            return loops.int_steps(out, compute, same, ctx)
        ctx = (a.data, b.data, out.data, out.numel, alpha)
        return loops.int_steps(out, compute, _add_alpha, ctx)
    plan, n, sa, sb = plan
    row = _add_row1 if alpha == 1 else (_sub_row1 if alpha == -1 else _add_row)
    ctx = loops.rows_ctx(row, (a.data, b.data, out.data, n, sa, sb, alpha), plan)
    return loops.int_steps(out, compute, loops.run_rows, ctx)


def scalar_step(a, out, c, compute):
    """Step for out = a + c (c a Python number fixed at load time)."""
    ctx = (a.data, out.data, out.numel, c)
    return loops.int_steps(out, compute, _add_scalar, ctx)


def _add(ctx):
    a, b, o, n = ctx
    for i in range(n):
        o[i] = a[i] + b[i]


def _add_alpha(ctx):
    a, b, o, n, alpha = ctx
    for i in range(n):
        o[i] = a[i] + alpha * b[i]


def _add_row(rctx, ia, ib, io):
    a, b, o, n, sa, sb, alpha = rctx
    for k in range(io, io + n):
        o[k] = a[ia] + alpha * b[ib]
        ia += sa
        ib += sb


def _add_row1(rctx, ia, ib, io):
    # alpha 1: no product per element; b constant along the row (a bias): one read
    a, b, o, n, sa, sb, _ = rctx
    if sb == 0:
        c = b[ib]
        for k in range(io, io + n):
            o[k] = a[ia] + c
            ia += sa
        return
    for k in range(io, io + n):
        o[k] = a[ia] + b[ib]
        ia += sa
        ib += sb


def _sub_row1(rctx, ia, ib, io):
    a, b, o, n, sa, sb, _ = rctx
    if sb == 0:
        c = b[ib]
        for k in range(io, io + n):
            o[k] = a[ia] - c
            ia += sa
        return
    for k in range(io, io + n):
        o[k] = a[ia] - b[ib]
        ia += sa
        ib += sb


def _add_scalar(ctx):
    a, o, n, c = ctx
    for i in range(n):
        o[i] = a[i] + c


dim_orders.mark_same(add_out, add_scalar_out)  # elementwise: flat over a shared order

"""aten::sub.out, aten::sub.Scalar_out: self - alpha * other (add's loops,
alpha negated; integer results wrap as in torch)."""

from mpy_et import dim_orders
from portable_kernels.op_add import alpha_steps, scalar_step
from portable_kernels.util import checks, f32_arith, loops


def sub_out(a, b, alpha, out):
    r = checks.arith_dtype((a, b), (), out, "sub")
    checks.alpha(alpha, r, "sub")
    plan = loops.broadcast(a, b, out, "sub")
    if alpha == 1 or alpha == -1:
        fast = f32_arith.steps(a, b, out, f32_arith.SUB if alpha == 1 else f32_arith.ADD, plan)
        if fast:
            return fast
    if plan is None and alpha == 1:
        ctx = (a.data, b.data, out.data, out.numel)
        return loops.int_steps(out, r, _sub, ctx)
    return alpha_steps(a, b, out, -alpha, plan, None, r)


def sub_scalar_out(a, other, alpha, out):
    r = checks.arith_dtype((a,), (other,), out, "sub.Scalar")
    checks.alpha(alpha, r, "sub.Scalar")
    checks.out_shape(out, a.sizes, "sub.Scalar")
    return scalar_step(a, out, -(alpha * other), r)


def _sub(ctx):
    a, b, o, n = ctx
    for i in range(n):
        o[i] = a[i] - b[i]


dim_orders.mark_same(sub_out, sub_scalar_out)  # elementwise: flat over a shared order

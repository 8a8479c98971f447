"""aten::rsub.Scalar_out, aten::rsub.Tensor_out: other - alpha * self (what
`1 - x` lowers to). Integer results wrap as in torch; the int32 steps
allocate nothing within the small-int range."""

from portable_kernels.op_add import alpha_steps
from portable_kernels.util import checks, loops


def rsub_scalar_out(a, other, alpha, out):
    what = "rsub.Scalar"
    r = checks.arith_dtype((a,), (other,), out, what)
    checks.alpha(alpha, r, what)
    checks.out_shape(out, a.sizes, what)
    if alpha == 1:
        ctx = (a.data, out.data, out.numel, other)
        return loops.int_steps(out, r, _rsub, ctx)
    ctx = (a.data, out.data, out.numel, other, alpha)
    return loops.int_steps(out, r, _rsub_alpha, ctx)


def rsub_tensor_out(a, b, alpha, out):
    what = "rsub.Tensor"
    r = checks.arith_dtype((a, b), (), out, what)
    checks.alpha(alpha, r, what)
    return alpha_steps(b, a, out, -alpha, loops.broadcast(b, a, out, what), None, r) if alpha != 1 else _minus(a, b, out, r, what)


def _minus(a, b, out, r, what):
    plan = loops.broadcast(b, a, out, what)
    if plan is None:
        ctx = (b.data, a.data, out.data, out.numel)
        return loops.int_steps(out, r, _rsub_same, ctx)
    return alpha_steps(b, a, out, -1, plan, None, r)


def _rsub(ctx):
    a, o, n, c = ctx
    for i in range(n):
        o[i] = c - a[i]


def _rsub_alpha(ctx):
    a, o, n, c, alpha = ctx
    for i in range(n):
        o[i] = c - alpha * a[i]


def _rsub_same(ctx):
    b, a, o, n = ctx
    for i in range(n):
        o[i] = b[i] - a[i]

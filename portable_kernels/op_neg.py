"""aten::neg.out. Integers wrap as in torch (-INT32_MIN is INT32_MIN); the
int32 step allocates nothing."""

from portable_kernels.util import checks, loops


def neg_out(x, out):
    r = checks.unary(x, out, "neg")
    ctx = (x.data, out.data, x.numel)
    return loops.int_steps(out, r, _neg, ctx)


def _neg(ctx):
    x, o, n = ctx
    for i in range(n):
        o[i] = -x[i]

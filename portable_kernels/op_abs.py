"""aten::abs.out. Integers wrap as in torch (abs(INT32_MIN) is INT32_MIN);
the int32 step allocates nothing."""

from portable_kernels.util import checks, loops


def abs_out(x, out):
    r = checks.unary(x, out, "abs")
    ctx = (x.data, out.data, x.numel)
    return loops.int_steps(out, r, _abs, ctx)


def _abs(ctx):
    x, o, n = ctx
    for i in range(n):
        v = x[i]
        o[i] = -v if v < 0 else v  # abs(-0.0) is 0.0 either way: -0.0 < 0 is False

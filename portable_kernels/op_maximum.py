"""aten::maximum.out: the larger of self and other elementwise, with
broadcasting; NaN in either gives NaN, as in torch. Allocation: none for
bool/int32 values; boxed floats for float values."""

from portable_kernels.util import checks, compare


def maximum_out(a, b, out):
    checks.arith_dtype((a, b), (), out, "maximum", True)
    return compare.binary_steps(a, b, out, "maximum", _maximum, _maximum_row)


def _maximum(ctx):
    a, b, o, n = ctx
    for i in range(n):
        v = a[i]
        w = b[i]
        o[i] = v if v > w or v != v else w


def _maximum_row(rctx, ia, ib, io):
    a, b, o, n, sa, sb = rctx
    for k in range(io, io + n):
        v = a[ia]
        w = b[ib]
        o[k] = v if v > w or v != v else w
        ia += sa
        ib += sb

"""aten::minimum.out: the smaller of self and other elementwise, with
broadcasting; NaN in either gives NaN, as in torch. Allocation: none for
bool/int32 values; boxed floats for float values."""

from portable_kernels.util import checks, compare


def minimum_out(a, b, out):
    checks.arith_dtype((a, b), (), out, "minimum", True)
    return compare.binary_steps(a, b, out, "minimum", _minimum, _minimum_row)


def _minimum(ctx):
    a, b, o, n = ctx
    for i in range(n):
        v = a[i]
        w = b[i]
        o[i] = v if v < w or v != v else w


def _minimum_row(rctx, ia, ib, io):
    a, b, o, n, sa, sb = rctx
    for k in range(io, io + n):
        v = a[ia]
        w = b[ib]
        o[k] = v if v < w or v != v else w
        ia += sa
        ib += sb

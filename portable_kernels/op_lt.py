"""aten::lt.Tensor_out, aten::lt.Scalar_out: self < other as a bool
tensor, with broadcasting (NaN compares as in torch). Allocation: none for
bool and int32 inputs; boxed floats for float inputs."""

from portable_kernels.util import compare


def lt_tensor_out(a, b, out):
    return compare.compare_tensor(a, b, out, "lt.Tensor", _lt, _lt_row)


def lt_scalar_out(a, other, out):
    return compare.compare_scalar(a, other, out, "lt.Scalar", _lt_scalar)


def _lt(ctx):
    a, b, o, n = ctx
    for i in range(n):
        o[i] = a[i] < b[i]


def _lt_row(rctx, ia, ib, io):
    a, b, o, n, sa, sb = rctx
    for k in range(io, io + n):
        o[k] = a[ia] < b[ib]
        ia += sa
        ib += sb


def _lt_scalar(ctx):
    a, o, n, c = ctx
    for i in range(n):
        o[i] = a[i] < c

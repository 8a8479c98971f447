"""aten::eq.Tensor_out, aten::eq.Scalar_out: self == other as a bool
tensor, with broadcasting (NaN compares as in torch). Allocation: none for
bool and int32 inputs; boxed floats for float inputs."""

from portable_kernels.util import compare


def eq_tensor_out(a, b, out):
    return compare.compare_tensor(a, b, out, "eq.Tensor", _eq, _eq_row)


def eq_scalar_out(a, other, out):
    return compare.compare_scalar(a, other, out, "eq.Scalar", _eq_scalar, True)


def _eq(ctx):
    a, b, o, n = ctx
    for i in range(n):
        o[i] = a[i] == b[i]


def _eq_row(rctx, ia, ib, io):
    a, b, o, n, sa, sb = rctx
    for k in range(io, io + n):
        o[k] = a[ia] == b[ib]
        ia += sa
        ib += sb


def _eq_scalar(ctx):
    a, o, n, c = ctx
    for i in range(n):
        o[i] = a[i] == c

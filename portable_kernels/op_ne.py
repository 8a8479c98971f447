"""aten::ne.Tensor_out, aten::ne.Scalar_out: self != other as a bool
tensor, with broadcasting (NaN compares as in torch). Allocation: none for
bool and int32 inputs; boxed floats for float inputs."""

from portable_kernels.util import compare


def ne_tensor_out(a, b, out):
    return compare.compare_tensor(a, b, out, "ne.Tensor", _ne, _ne_row)


def ne_scalar_out(a, other, out):
    return compare.compare_scalar(a, other, out, "ne.Scalar", _ne_scalar, False)


def _ne(ctx):
    a, b, o, n = ctx
    for i in range(n):
        o[i] = a[i] != b[i]


def _ne_row(rctx, ia, ib, io):
    a, b, o, n, sa, sb = rctx
    for k in range(io, io + n):
        o[k] = a[ia] != b[ib]
        ia += sa
        ib += sb


def _ne_scalar(ctx):
    a, o, n, c = ctx
    for i in range(n):
        o[i] = a[i] != c

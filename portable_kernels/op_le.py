"""aten::le.Tensor_out, aten::le.Scalar_out: self <= other as a bool
tensor, with broadcasting (NaN compares as in torch). Allocation: none for
bool and int32 inputs; boxed floats for float inputs."""

from portable_kernels.util import compare


def le_tensor_out(a, b, out):
    return compare.compare_tensor(a, b, out, "le.Tensor", _le, _le_row)


def le_scalar_out(a, other, out):
    return compare.compare_scalar(a, other, out, "le.Scalar", _le_scalar)


def _le(ctx):
    a, b, o, n = ctx
    for i in range(n):
        o[i] = a[i] <= b[i]


def _le_row(rctx, ia, ib, io):
    a, b, o, n, sa, sb = rctx
    for k in range(io, io + n):
        o[k] = a[ia] <= b[ib]
        ia += sa
        ib += sb


def _le_scalar(ctx):
    a, o, n, c = ctx
    for i in range(n):
        o[i] = a[i] <= c

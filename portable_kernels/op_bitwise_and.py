"""aten::bitwise_and.Tensor_out, aten::bitwise_and.Scalar_out: self & other
on bool and integer tensors, with broadcasting (bool & bool is the logical
op). Allocation: none for bool and int32 inputs."""

from portable_kernels.util import checks, compare


def bitwise_and_tensor_out(a, b, out):
    compare.bitwise_dtype((a, b), (), out, "bitwise_and.Tensor")
    return compare.binary_steps(a, b, out, "bitwise_and.Tensor", _bitwise_and, _bitwise_and_row)


def bitwise_and_scalar_out(a, other, out):
    compare.bitwise_dtype((a,), (other,), out, "bitwise_and.Scalar")
    checks.out_shape(out, a.sizes, "bitwise_and.Scalar")
    return _bitwise_and_scalar, (a.data, out.data, out.numel, int(other))


def _bitwise_and(ctx):
    a, b, o, n = ctx
    for i in range(n):
        o[i] = a[i] & b[i]


def _bitwise_and_row(rctx, ia, ib, io):
    a, b, o, n, sa, sb = rctx
    for k in range(io, io + n):
        o[k] = a[ia] & b[ib]
        ia += sa
        ib += sb


def _bitwise_and_scalar(ctx):
    a, o, n, c = ctx
    for i in range(n):
        o[i] = a[i] & c

"""aten::bitwise_or.Tensor_out, aten::bitwise_or.Scalar_out: self | other
on bool and integer tensors, with broadcasting (bool | bool is the logical
op). Allocation: none for bool and int32 inputs."""

from portable_kernels.util import checks, compare


def bitwise_or_tensor_out(a, b, out):
    compare.bitwise_dtype((a, b), (), out, "bitwise_or.Tensor")
    return compare.binary_steps(a, b, out, "bitwise_or.Tensor", _bitwise_or, _bitwise_or_row)


def bitwise_or_scalar_out(a, other, out):
    compare.bitwise_dtype((a,), (other,), out, "bitwise_or.Scalar")
    checks.out_shape(out, a.sizes, "bitwise_or.Scalar")
    return _bitwise_or_scalar, (a.data, out.data, out.numel, int(other))


def _bitwise_or(ctx):
    a, b, o, n = ctx
    for i in range(n):
        o[i] = a[i] | b[i]


def _bitwise_or_row(rctx, ia, ib, io):
    a, b, o, n, sa, sb = rctx
    for k in range(io, io + n):
        o[k] = a[ia] | b[ib]
        ia += sa
        ib += sb


def _bitwise_or_scalar(ctx):
    a, o, n, c = ctx
    for i in range(n):
        o[i] = a[i] | c

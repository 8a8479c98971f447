"""aten::bitwise_not.out: logical not of a bool tensor, ~x of an integer
one. Allocation: none for bool and int32 inputs."""

from mpy_et import dtypes
from portable_kernels.util import checks, compare


def bitwise_not_out(x, out):
    r = compare.bitwise_dtype((x,), (), out, "bitwise_not")
    checks.out_shape(out, x.sizes, "bitwise_not")
    return (_not_bool if r == dtypes.BOOL else _not_int), (x.data, out.data, out.numel)


def _not_bool(ctx):
    x, o, n = ctx
    for i in range(n):
        o[i] = x[i] ^ 1


def _not_int(ctx):
    x, o, n = ctx
    for i in range(n):
        o[i] = ~x[i]

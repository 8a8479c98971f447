"""aten::logical_not.out: self == 0 as a bool tensor, any input dtype (NaN
counts as true, as in torch). Allocation: none for bool and int32 inputs."""

from portable_kernels.util import compare


def logical_not_out(x, out):
    return compare.unary_bool(x, out, "logical_not", _logical_not, True)


def _logical_not(ctx):
    x, o, n = ctx
    for i in range(n):
        o[i] = x[i] == 0

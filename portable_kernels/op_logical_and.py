"""aten::logical_and.out: (self != 0) & (other != 0) as a bool tensor, any
input dtypes, with broadcasting (NaN counts as true, as in torch)."""

from portable_kernels.util import compare


def logical_and_out(a, b, out):
    return compare.compare_tensor(a, b, out, "logical_and", _logical_and, _logical_and_row)


def _logical_and(ctx):
    a, b, o, n = ctx
    for i in range(n):
        o[i] = (a[i] != 0) & (b[i] != 0)


def _logical_and_row(rctx, ia, ib, io):
    a, b, o, n, sa, sb = rctx
    for k in range(io, io + n):
        o[k] = (a[ia] != 0) & (b[ib] != 0)
        ia += sa
        ib += sb

"""aten::min.dim_min: the smallest element along dim and its index
(int64), keepdim as torch (NaN wins; the first index on ties);
aten::min.unary_out: the smallest element of the whole tensor. Allocation:
none for bool and int32 inputs; boxed floats for float inputs."""

from portable_kernels.util import checks
from portable_kernels.util.reduce_extreme import dim_arg, extreme


def min_dim_min(x, dim, keepdim, values, indices):
    what = "min.dim"
    ko, ro = extreme(x, dim_arg(dim, what), keepdim, values, what, indices)
    return _min_dim, (x.data, values.data, indices.data, ko, ro)


def min_unary_out(x, out):
    what = "min.unary"
    checks.is_tensor(x, what + " self")
    if x.numel == 0:
        checks.fail("%s: the tensor %s is empty (torch raises: no identity)" % (what, checks.shape_str(x)))
    ko, ro = extreme(x, None, False, out, what)
    return _min_all, (x.data, out.data, ro)


def _min_dim(ctx):
    x, o, oi, ko, ro = ctx
    k = 0
    for b in ko:
        m = x[b]
        best = 0
        j = 0
        for r in ro:
            v = x[b + r]
            if v < m or v != v:
                m = v
                best = j
                if v != v:
                    break
            j += 1
        o[k] = m
        oi[k] = best
        k += 1


def _min_all(ctx):
    x, o, ro = ctx
    m = x[0]
    for r in ro:
        v = x[r]
        if v < m or v != v:
            m = v
            if v != v:
                break
    o[0] = m

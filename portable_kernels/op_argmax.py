"""aten::argmax.out: the index of the largest element along dim (None:
over the flattened tensor), into an int64 out; the first one on ties, the
first NaN if any, as torch. Allocation: none for bool and int32 inputs
(small int64 stores); boxed floats for float inputs."""

from portable_kernels.util.reduce_extreme import arg


def argmax_out(x, dim, keepdim, out):
    ko, ro = arg(x, dim, keepdim, out, "argmax")
    return _argmax, (x.data, out.data, ko, ro)


def _argmax(ctx):
    x, o, ko, ro = ctx
    k = 0
    for b in ko:
        m = x[b]
        best = 0
        j = 0
        for r in ro:
            v = x[b + r]
            if v > m or v != v:
                m = v
                best = j
                if v != v:
                    break
            j += 1
        o[k] = best
        k += 1

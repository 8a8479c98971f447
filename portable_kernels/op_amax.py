"""aten::amax.out: the largest element over dims (a list; [] is every
dim), keepdim as torch; NaN wins, as in torch. Allocation: none for bool
and int32 inputs; boxed floats for float inputs."""

from portable_kernels.reduce_extreme import extreme


def amax_out(x, dim, keepdim, out):
    ko, ro = extreme(x, dim, keepdim, out, "amax")
    return _amax, (x.data, out.data, ko, ro)


def _amax(ctx):
    x, o, ko, ro = ctx
    k = 0
    for b in ko:
        m = x[b]
        for r in ro:
            v = x[b + r]
            if v > m or v != v:
                m = v
                if v != v:
                    break
        o[k] = m
        k += 1

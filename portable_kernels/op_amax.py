"""aten::amax.out: the largest element over dims (a list; [] is every
dim), keepdim as torch; NaN wins, as in torch. Allocation: none for bool
and int32 inputs; boxed floats for float inputs."""

from portable_kernels.reduce_extreme import extreme


def amax_out(x, dim, keepdim, out):
    ko, ro = extreme(x, dim, keepdim, out, "amax")
    return _amax, (x.data, out.data, ko, ro[1:])  # ro[0] is 0: the first element starts the walk


def _amax(ctx):
    # `not v <= m` is also true for a NaN v; the NaN test runs only when m changes
    x, o, ko, rest = ctx
    k = 0
    for b in ko:
        m = x[b]
        if m == m:
            for r in rest:
                v = x[b + r]
                if not v <= m:
                    m = v
                    if v != v:
                        break
        o[k] = m
        k += 1

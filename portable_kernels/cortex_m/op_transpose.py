"""cortex_m::transpose.out: out = input.permute(perm), any dtype, through both
tensors' dim-order strides. The step moves elements one by one and
allocates nothing for integer dtypes."""

from mpy_et import dim_orders, dtypes, noalloc
from portable_kernels.cortex_m import layout
from portable_kernels.util import checks


def transpose_out(x, perm, out):
    what = "cortex_m::transpose"
    checks.is_tensor(x, what + " input")
    checks.is_tensor(out, what + " out")
    checks.same_dtype(x, out)
    nd = len(x.sizes)
    p = checks.int_list(perm, nd, what + " perm", 0)
    if sorted(p) != list(range(nd)):
        checks.fail("%s: perm %s is not a permutation of %d dims" % (what, list(p), nd))
    if nd > 4:
        checks.fail("%s: %d dims; at most 4" % (what, nd))
    checks.out_shape(out, tuple(x.sizes[d] for d in p), what)
    xs = layout.strides(x)
    # out index (i0..i3) reads x at sum(i_k * xs[perm[k]])
    sizes = [1] * (4 - nd) + list(out.sizes)
    src = [0] * (4 - nd) + [xs[d] for d in p]
    dst = [0] * (4 - nd) + layout.strides(out)
    if out.numel == 0:
        return None
    step = _move if x.dtype not in (dtypes.FLOAT, dtypes.DOUBLE) else _move_float
    return step, (x.data, out.data, tuple(sizes), tuple(src), tuple(dst))


def _move(ctx):
    xd, od, sizes, src, dst = ctx
    for i in range(sizes[0]):
        for j in range(sizes[1]):
            for k in range(sizes[2]):
                ps = i * src[0] + j * src[1] + k * src[2]
                pd = i * dst[0] + j * dst[1] + k * dst[2]
                for m in range(sizes[3]):
                    od[pd + m * dst[3]] = xd[ps + m * src[3]]


def _move_float(ctx):
    _move(ctx)


noalloc.mark(_move)


dim_orders.mark(transpose_out)

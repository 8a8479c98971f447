"""Dim orders in the dim_order_ops kernels: which order a call asks for, and
copies between two orders (the element bytes moved through both tensors'
strides: any dtype, no float objects, no allocation in the step)."""

from mpy_et import dtypes, noalloc
from portable_kernels.util import checks


def requested(dim_order, out, what):
    """The call's dim_order (None: contiguous) must be out's order."""
    nd = len(out.sizes)
    want = list(range(nd)) if dim_order is None else dim_order
    if not isinstance(want, (list, tuple)) or sorted(want) != list(range(nd)):
        checks.fail("%s: dim_order %r is not a permutation of %d dims" % (what, dim_order, nd))
    if strides(out.sizes, want) != strides(out.sizes, out.dim_order):
        checks.not_supported("%s: dim_order %r differs from its out tensor's %s" % (what, list(want), out.dim_order))


def strides(sizes, order):
    """Element strides of each logical dim for bytes in `order` (None: contiguous)."""
    nd = len(sizes)
    if order is None:
        order = range(nd)
    st = [0] * nd
    s = 1
    for k in range(nd - 1, -1, -1):
        st[order[k]] = s
        s *= sizes[order[k]]
    return st


def converts(x, out):
    """True when x and out hold their elements in different orders."""
    return strides(x.sizes, x.dim_order) != strides(out.sizes, out.dim_order)


def copy_between(x, out, what):
    """(step, ctx) copying x into out's order (same dtype and shape)."""
    if x.dtype != out.dtype:
        checks.not_supported("%s: changing dtype and dim order at once is not supported" % what)
    nd = len(x.sizes)
    if nd > 6:
        checks.fail("%s: %d dims; at most 6 when the dim order changes" % (what, nd))
    size = dtypes.itemsize(x.dtype)
    xs = strides(x.sizes, x.dim_order)
    os_ = strides(out.sizes, out.dim_order)
    pad = 6 - nd
    sizes = (1,) * pad + tuple(x.sizes)
    src = (0,) * pad + tuple(v * size for v in xs)
    dst = (0,) * pad + tuple(v * size for v in os_)
    if out.numel == 0:
        return None
    return _copy, (x.buf, x.offset, out.buf, out.offset, sizes, src, dst, size)


def _copy(ctx):
    xb, xo, ob, oo, sz, src, dst, size = ctx
    for a in range(sz[0]):
        for b in range(sz[1]):
            for c in range(sz[2]):
                for d in range(sz[3]):
                    ps = xo + a * src[0] + b * src[1] + c * src[2] + d * src[3]
                    pd = oo + a * dst[0] + b * dst[1] + c * dst[2] + d * dst[3]
                    for e in range(sz[4]):
                        pse = ps + e * src[4]
                        pde = pd + e * dst[4]
                        for f in range(sz[5]):
                            s = pse + f * src[5]
                            t = pde + f * dst[5]
                            for k in range(size):
                                ob[t + k] = xb[s + k]


noalloc.mark(_copy)

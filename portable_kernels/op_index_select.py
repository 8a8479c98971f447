"""aten::index_select.out: x's slices along dim picked by a 1-D (or 0-dim)
index tensor. Any dtype (raw units, util/strided.py); int32/int64 indices. The
step does not allocate; an index outside [0, size) fails."""

from portable_kernels.util import checks, indices, loops, strided


def index_select_out(x, dim, index, out):
    what = "index_select"
    checks.is_tensor(x, what + " self")
    checks.is_tensor(out, what + " out")
    checks.same_dtype(x, out)
    view, istep = indices.view(index, what + " index")
    if len(index.sizes) > 1:
        checks.fail("%s: index must be 0-D or 1-D, got %s" % (what, checks.shape_str(index)))
    nd = len(x.sizes)
    d = checks.norm_dim(dim, nd, what)
    sizes = list(x.sizes)
    if nd:
        sizes[d] = index.numel
    elif index.numel != 1:
        checks.fail("%s: a 0-dim self needs exactly one index, got %s" % (what, checks.shape_str(index)))
    checks.out_shape(out, sizes, what)
    if out.numel == 0:
        return None
    units = strided.units_of(x.dtype)
    outer = loops.numel(x.sizes[:d])
    size = x.sizes[d] if nd else 1
    inner = loops.numel(x.sizes[d + 1 :]) * units
    ctx = (strided.raw_view(x)[0], strided.raw_view(out)[0], view, istep, index.numel, outer, size, inner)
    return _index_select, ctx


def _index_select(ctx):
    x, o, idx, istep, n, outer, size, inner = ctx
    oi = 0
    block = size * inner
    base = 0
    for _ in range(outer):
        k = 0
        for _ in range(n):
            v = idx[k]
            k += istep
            if v < 0 or v >= size:
                indices.out_of_range("index_select", v, size)
            a = base + v * inner
            for q in range(a, a + inner):
                o[oi] = x[q]
                oi += 1
        base += block

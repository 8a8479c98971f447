"""aten::index.Tensor_out: advanced indexing with integer index tensors,
x[:, idx1, idx2] style (None entries keep a dim whole). The index tensors
must be adjacent; they broadcast together and their shape replaces the dims
they index (torch's rule for adjacent indices). Negative indices count from
the end. Bool masks (data-dependent shapes) and non-adjacent index tensors
are not supported: a clear load error.

Any dtype (raw units, util/strided.py); int32/int64 indices. The step does not
allocate; an out-of-range index fails.
"""

from mpy_et import dtypes
from portable_kernels.util import checks, indices, loops, strided


def index_tensor_out(x, idx, out):
    what = "index"
    checks.is_tensor(x, what + " self")
    checks.is_tensor(out, what + " out")
    checks.same_dtype(x, out)
    dims, outer, block, nb, inner, shape, first, last = index_plan(x, idx, what)
    checks.out_shape(out, tuple(x.sizes[:first]) + shape + tuple(x.sizes[last:]), what)
    if out.numel == 0:
        return None
    units = strided.units_of(x.dtype)
    dims = [(view, pos, size, stride * units) for view, pos, size, stride in dims]
    ctx = (strided.raw_view(x)[0], strided.raw_view(out)[0], dims, outer, block * units, nb, inner * units)
    return _index, ctx


def index_plan(x, idx, what):
    """Check the index tensors of x[idx]; return (dims, outer, block, nb,
    inner, shape, first, last): per index tensor (view, read position per
    broadcast position, indexed dim size, element stride); the elements
    before the indexed dims (outer, `block` elements apart), the broadcast
    count nb of shape, the elements after (inner); the indexed dims are
    first:last."""
    if not isinstance(idx, (list, tuple)) or not idx or len(idx) > len(x.sizes):
        checks.fail("%s: expected 1 to %d optional index tensors, got %r" % (what, len(x.sizes), idx))
    used = [i for i, t in enumerate(idx) if t is not None]
    if not used:
        checks.fail("%s: at least one index tensor is needed" % what)
    if used != list(range(used[0], used[-1] + 1)):
        checks.not_supported("%s: index tensors at dims %s are not adjacent" % (what, used))
    views, shape = [], ()
    for i in used:
        t = idx[i]
        checks.is_tensor(t, "%s indices[%d]" % (what, i))
        if t.dtype in (dtypes.BOOL, dtypes.BYTE):
            checks.not_supported("%s: boolean mask indices[%d] (the result's shape depends on the data)" % (what, i))
        views.append(indices.view(t, "%s indices[%d]" % (what, i)))
        shape = loops.broadcast_shape(shape, tuple(t.sizes), what + " indices")
    first, last = used[0], used[-1] + 1
    xs = loops.contiguous_strides(x.sizes)
    # per index tensor: where each broadcast position reads it (load-time lists)
    dims = []
    for (view, istep), i in zip(views, used):
        pos = [p * istep for p in _offsets(shape, loops.operand_strides(idx[i].sizes, shape))]
        dims.append((view, pos, x.sizes[i], xs[i]))
    inner = loops.numel(x.sizes[last:])
    outer = loops.numel(x.sizes[:first])
    block = loops.numel(x.sizes[first:])
    return dims, outer, block, loops.numel(shape), inner, shape, first, last


def _offsets(shape, strides):
    """Flat offset of every position of shape (row-major) under strides."""
    offs = [0]
    for d in range(len(shape)):
        offs = [o + k * strides[d] for o in offs for k in range(shape[d])]
    return offs


def _index(ctx):
    x, o, dims, outer, block, nb, inner = ctx
    oi = 0
    base = 0
    for _ in range(outer):
        for b in range(nb):
            a = base
            for view, pos, size, stride in dims:
                v = view[pos[b]]
                if v < 0:
                    v += size
                if v < 0 or v >= size:
                    indices.out_of_range("index", v, size)
                a += v * stride
            for q in range(a, a + inner):
                o[oi] = x[q]
                oi += 1
        base += block

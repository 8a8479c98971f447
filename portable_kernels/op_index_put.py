"""aten::index_put.out: out = self with out[indices] = values (or +=
values with accumulate), `x[:, idx] = v` style. The same index forms as
aten::index.Tensor_out (op_index.py): adjacent integer index tensors that
broadcast together, None entries keep a dim whole, negative indices count
from the end; bool masks and non-adjacent indices fail at load. values
broadcast to the indexed shape. With repeated indices the last write wins
(accumulate: all are added).

Any dtype without accumulate (int64 moves as int32 words); accumulate needs
a readable dtype (float, or int up to int32). The step copies self's bytes,
then walks the indexed positions; it allocates only boxed floats, and an
out-of-range index fails.
"""

from portable_kernels.op_index import _offsets, index_plan
from portable_kernels.util import checks, indices, loops


def index_put_out(x, idx, values, accumulate, out):
    what = "index_put"
    checks.is_tensor(x, what + " self")
    checks.is_tensor(values, what + " values")
    checks.is_tensor(out, what + " out")
    checks.same_dtype(x, values, out)
    checks.same_shape(x, out, what)
    checks.flag(accumulate, what + " accumulate")
    dims, outer, block, nb, inner, shape, first, last = index_plan(x, idx, what)
    result = tuple(x.sizes[:first]) + shape + tuple(x.sizes[last:])
    if loops.broadcast_shape(tuple(values.sizes), result, what + " values") != result:
        checks.fail("%s: values %s do not broadcast to the indexed shape %s" % (what, checks.shape_str(values), list(result)))
    copy = loops.copy_all(x, out)
    if copy is None or loops.numel(result) == 0:
        return copy
    if accumulate:
        checks.dtype_in(x, checks.READABLE, what + " self (accumulate)")
        dst, src, units = out.data, values.data, 1
    else:
        dst, units = loops.copy_view(out)
        src = loops.copy_view(values)[0]
    # where values[...] is read for each (outer, broadcast, inner) position
    vs = loops.operand_strides(values.sizes, result)
    npre = first
    npost = len(x.sizes) - last
    pre = [p * units for p in _offsets(result[:npre], vs[:npre])]
    mid = [p * units for p in _offsets(shape, vs[npre : npre + len(shape)])]
    post = [p * units for p in _offsets(result[len(result) - npost :], vs[len(vs) - npost :])]
    dims = [(view, pos, size, stride * units) for view, pos, size, stride in dims]
    ctx = (copy, dst, src, dims, outer, block * units, nb, pre, mid, post, units, accumulate)
    return _index_put, ctx


def _index_put(ctx):
    copy, o, v, dims, outer, block, nb, pre, mid, post, units, accumulate = ctx
    copy[0](copy[1])
    base = 0
    for oi in range(outer):
        vo = pre[oi]
        for b in range(nb):
            a = base
            for view, pos, size, stride in dims:
                k = view[pos[b]]
                if k < 0:
                    k += size
                if k < 0 or k >= size:
                    indices.out_of_range("index_put", k, size)
                a += k * stride
            vb = vo + mid[b]
            for p in post:
                if accumulate:
                    o[a] += v[vb + p]
                    a += 1
                elif units == 1:
                    o[a] = v[vb + p]
                    a += 1
                else:
                    o[a] = v[vb + p]
                    o[a + 1] = v[vb + p + 1]
                    a += 2
        base += block

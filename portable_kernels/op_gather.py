"""aten::gather.out: out[i][j][k] = x[i][index[i][j][k]][k] (for dim 1),
out of index's shape. Any dtype (raw units, util/strided.py); int32/int64
index. The step walks index's rows (loops.run_rows) and does not allocate;
an index outside [0, size) fails."""

from portable_kernels.util import checks, indices, loops, strided


def gather_out(x, dim, index, sparse_grad, out):
    what = "gather"
    checks.is_tensor(x, what + " self")
    checks.is_tensor(out, what + " out")
    checks.same_dtype(x, out)
    checks.flag(sparse_grad, what + " sparse_grad")
    view, istep = indices.view(index, what + " index")
    nd = len(x.sizes)
    d = checks.norm_dim(dim, nd, what)
    if len(index.sizes) != nd and index.numel:
        checks.fail("%s: index %s must have as many dims as self %s" % (what, checks.shape_str(index), checks.shape_str(x)))
    for i in range(len(index.sizes)):
        if i != d and index.sizes[i] > x.sizes[i]:
            checks.fail("%s: index %s is larger than self %s outside dim %d" % (what, checks.shape_str(index), checks.shape_str(x), d))
    checks.out_shape(out, index.sizes, what)
    if out.numel == 0:
        return None
    units = strided.units_of(x.dtype)
    xs = [s * units for s in loops.contiguous_strides(x.sizes)] if nd else [units]
    size = x.sizes[d] if nd else 1
    sa = list(xs)
    sa[d] = 0
    sb = [s * istep for s in loops.contiguous_strides(index.sizes)] if nd else [istep]
    sizes = tuple(index.sizes) if nd else (1,)
    plan, n, ra, rb = loops.rows_plan(sizes, sa, sb)
    rctx = (strided.raw_view(x)[0], strided.raw_view(out)[0], view, n, ra, rb, xs[d], size, units)
    return loops.run_rows, loops.rows_ctx(_gather_row, rctx, plan)


def _gather_row(rctx, ia, ib, io):
    x, o, idx, n, sa, sb, sd, size, units = rctx
    oi = io * units
    for _ in range(n):
        v = idx[ib]
        if v < 0 or v >= size:
            indices.out_of_range("gather", v, size)
        a = ia + v * sd
        for q in range(a, a + units):
            o[oi] = x[q]
            oi += 1
        ia += sa
        ib += sb

"""aten::embedding.out: out[..., :] = weight[indices[...], :]. Any weight
dtype (rows move as raw units, util/strided.py); indices int32 or int64.
padding_idx, scale_grad_by_freq and sparse only matter for training. The
step does not allocate; an index outside [0, num_embeddings) fails."""

from portable_kernels.util import checks, indices, strided


def embedding_out(weight, idx, padding_idx, scale_grad_by_freq, sparse, out):
    what = "embedding"
    checks.is_tensor(weight, what + " weight")
    checks.is_tensor(out, what + " out")
    checks.dim_count(weight, 2, what + " weight")
    checks.same_dtype(weight, out)
    view, istep = indices.view(idx, what + " indices")
    checks.out_shape(out, tuple(idx.sizes) + (weight.sizes[1],), what)
    if out.numel == 0:
        return None
    units = strided.units_of(weight.dtype)
    row = weight.sizes[1] * units
    return _embedding, (strided.raw_view(weight)[0], strided.raw_view(out)[0], view, istep, idx.numel, weight.sizes[0], row)


def _embedding(ctx):
    w, o, idx, istep, n, rows, row = ctx
    oi = 0
    k = 0
    for _ in range(n):
        v = idx[k]
        k += istep
        if v < 0 or v >= rows:
            indices.out_of_range("embedding", v, rows)
        a = v * row
        for q in range(a, a + row):
            o[oi] = w[q]
            oi += 1

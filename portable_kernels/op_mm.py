"""aten::mm.out and the matrix-product loop shared with addmm and bmm. Float only.

The loop runs k-outer: four rows of mat2 are scaled by four elements of a
mat1 row and summed into a list of Python floats (one output row), so each
float32 element of mat2 is read once per output row. Allocation in the
step: boxed floats only.
"""

from mpy_et import dtypes
from portable_kernels import checks

_FLOATS = (dtypes.FLOAT, dtypes.DOUBLE)


def mm_out(a, b, out):
    m, k, n = check_mm(a, b, out, "mm")
    return _mm, (a.data, b.data, out.data, 1, m, k, n, [0.0] * n)


def check_mm(a, b, out, what, batched=False):
    """Check a @ b -> out (2-D, or 3-D with a batch dim); return (m, k, n)."""
    nd = 3 if batched else 2
    for t, name in ((a, "self"), (b, "mat2"), (out, "out")):
        checks.is_tensor(t, "%s %s" % (what, name))
        checks.dtype_in(t, _FLOATS, "%s %s" % (what, name))
        checks.dim_count(t, nd, "%s %s" % (what, name))
    checks.same_dtype(a, b, out)
    if a.sizes[-1] != b.sizes[-2] or (batched and a.sizes[0] != b.sizes[0]):
        checks.fail("%s: shapes %s and %s cannot be multiplied" % (what, checks.shape_str(a), checks.shape_str(b)))
    checks.out_shape(out, tuple(a.sizes[:-1]) + (b.sizes[-1],), what)
    return a.sizes[-2], a.sizes[-1], b.sizes[-1]


def accumulate(a, ai, b, bi, k, n, acc):
    """acc[j] += sum over kk of a[ai + kk] * b[bi + kk * n + j] (a helper the steps call once per output row)."""
    n2 = 2 * n
    n3 = 3 * n
    n4 = 4 * n
    k4 = k - k % 4
    for kk in range(ai, ai + k4, 4):
        a0 = a[kk]
        a1 = a[kk + 1]
        a2 = a[kk + 2]
        a3 = a[kk + 3]
        j = 0
        for q in range(bi, bi + n):
            acc[j] += a0 * b[q] + a1 * b[q + n] + a2 * b[q + n2] + a3 * b[q + n3]
            j += 1
        bi += n4
    for kk in range(ai + k4, ai + k):
        a0 = a[kk]
        j = 0
        for q in range(bi, bi + n):
            acc[j] += a0 * b[q]
            j += 1
        bi += n


def _mm(ctx):
    """Also bmm's step: `batches` products of (m, k) @ (k, n)."""
    a, b, o, batches, m, k, n, acc = ctx
    ai = 0
    bi = 0
    oi = 0
    for _ in range(batches):
        for _ in range(m):
            for j in range(n):
                acc[j] = 0.0
            accumulate(a, ai, b, bi, k, n, acc)
            ai += k
            for j in range(n):
                o[oi] = acc[j]
                oi += 1
        bi += k * n

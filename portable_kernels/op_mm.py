"""aten::mm.out, and the checks and step shared with bmm. Float only.

Each output row is summed into a list of Python floats by
loops.accumulate. Allocation in the step: boxed floats only.
"""

from mpy_et import dtypes
from portable_kernels import checks
from portable_kernels.loops import accumulate, release

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
    release(acc)

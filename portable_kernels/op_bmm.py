"""aten::bmm.out: batched matrix product (mm's loop). Float only."""

from portable_kernels.op_mm import _mm, check_mm


def bmm_out(a, b, out):
    m, k, n = check_mm(a, b, out, "bmm", batched=True)
    return _mm, (a.data, b.data, out.data, a.sizes[0], m, k, n, [0.0] * n)

"""aten::bmm.out: batched matrix product (mm's loop). Float only."""

from portable_kernels.op_mm import check_mm, mm_step


def bmm_out(a, b, out):
    m, k, n = check_mm(a, b, out, "bmm", batched=True)
    return mm_step(a, b, out, a.sizes[0], m, k, n)

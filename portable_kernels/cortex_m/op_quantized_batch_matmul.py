"""cortex_m::quantized_batch_matmul.out (arm_batch_matmul_s8): out[b, i, j] =
requant(sum_k (lhs[b, i, k] + lhs_zp) * (rhs_t[b, j, k] + rhs_zp)) + zp,
clamped to int8 (the "zero points" are CMSIS-NN offsets, added). ExecuTorch's
reference sums in float32, exact while partial sums stay below 2**24; here
the sum is exact. The step allocates nothing."""

from mpy_et import dim_orders, noalloc
from portable_kernels.cortex_m import cmsis, conv, layout
from portable_kernels.util import checks


def quantized_batch_matmul_out(lhs, lhs_zp, rhs_t, rhs_zp, out_zp, out_mult, out_shift, scratch, out):
    what = "cortex_m::quantized_batch_matmul"
    for t, name in ((lhs, "lhs"), (rhs_t, "rhs_transposed"), (out, "out")):
        conv.check_q(t, what + " " + name)
        checks.dim_count(t, 3, what + " " + name)
    b, m, k = lhs.sizes
    b2, n, k2 = rhs_t.sizes
    if b2 != b or k2 != k:
        checks.fail("%s: lhs %s and rhs_transposed %s do not match" % (what, checks.shape_str(lhs), checks.shape_str(rhs_t)))
    checks.out_shape(out, (b, m, n), what)
    ls, rs, os_ = layout.strides(lhs), layout.strides(rhs_t), layout.strides(out)
    if out.numel == 0:
        return None
    geo = (b, m, n, k, ls[0], ls[1], ls[2], rs[0], rs[1], rs[2], os_[0], os_[1], os_[2])
    return _bmm, (lhs.data, rhs_t.data, out.data, geo, lhs_zp, rhs_zp, cmsis.params(out_mult, out_shift, what), out_zp)


def _bmm(ctx):
    ld, rd, od, geo, lz, rz, rq, zp = ctx
    b, m, n, k, l0, l1, l2, r0, r1, r2, o0, o1, o2 = geo
    for bb in range(b):
        for i in range(m):
            lb = bb * l0 + i * l1
            for j in range(n):
                rb = bb * r0 + j * r1
                acc = 0
                for t in range(k):
                    acc += (ld[lb + t * l2] + lz) * (rd[rb + t * r2] + rz)
                v = cmsis.requantize(acc, rq) + zp
                od[bb * o0 + i * o1 + j * o2] = -128 if v < -128 else 127 if v > 127 else v


noalloc.mark(_bmm)


dim_orders.mark(quantized_batch_matmul_out)

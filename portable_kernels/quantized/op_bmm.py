"""mpy_et_quant::bmm.out: batched int8 matrix product of two activations
(attention's Q @ K^T and P @ V), per-tensor zero points and one requantization:
    out[b, i, j] = clamp(zo + requant(sum_k (a[b, i, k] - za) * (b[b, k, j] - zb)), out_min, out_max)
a int8 [B, M, K], b int8 [B, K, N], out int8 [B, M, N]. K is bounded at load
so the accumulator stays a small int on 32-bit ports (K * 255 * 255 < 2**30).
Pure-Python step here (every port); a viper step (native/q_bmm_viper.py) where the
port has a native emitter, its integers in assembler (native/q_bmm_thumb.py) on
Thumb-2 boards. Does not allocate in the step."""

from mpy_et import noalloc
from portable_kernels.quantized import requant as q_requant
from portable_kernels.quantized.requant import check_int8, requant, scalar_params, zero_point
from portable_kernels.util import checks
from portable_kernels.util.emitters import THUMB2

MAX_K = ((1 << 30) - 1) // (255 * 255)  # 16512


def bmm_out(a, b, a_zp, b_zp, multiplier, shift, limit, out_zp, out_min, out_max, out):
    what = "mpy_et_quant::bmm"
    for t, name in ((a, "a"), (b, "b"), (out, "out")):
        check_int8(t, "%s %s" % (what, name))
        if len(t.sizes) != 3:
            checks.fail("%s: %s must be 3-D [batch, rows, cols], got %s" % (what, name, checks.shape_str(t)))
    nb, m, k = a.sizes
    if b.sizes[0] != nb or b.sizes[1] != k:
        checks.fail("%s: b must be [%d, %d, N] for a %s, got %s" % (what, nb, k, checks.shape_str(a), checks.shape_str(b)))
    n = b.sizes[2]
    if tuple(out.sizes) != (nb, m, n):
        checks.fail("%s: out must be [%d, %d, %d], got %s" % (what, nb, m, n, checks.shape_str(out)))
    if k > MAX_K:
        checks.fail("%s: inner size %d beyond %d (the accumulator would leave 30 bits)" % (what, k, MAX_K))
    scalar_params(multiplier, shift, limit, what)
    za = zero_point(a_zp, what + " a_zero_point")
    zb = zero_point(b_zp, what + " b_zero_point")
    zo = zero_point(out_zp, what + " out_zero_point")
    lo, hi = zero_point(out_min, what + " out_min"), zero_point(out_max, what + " out_max")
    if lo > hi:
        checks.fail("%s: out_min %d above out_max %d" % (what, lo, hi))
    if out.numel == 0:
        return None
    if THUMB2 and q_requant.use_viper and k > 0:  # Thumb-2 boards: the same integers in assembler (native/q_bmm_thumb.py)
        from portable_kernels.native import q_bmm_thumb

        return q_bmm_thumb.prepare(a, b, out, nb, m, k, n, za, zb, multiplier, shift, limit, zo, lo, hi)
    if q_requant.use_viper:  # the port has a native emitter (native/q_bmm_viper.py)
        from portable_kernels.native import q_bmm_viper

        return q_bmm_viper.prepare(a, b, out, nb, m, k, n, za, zb, multiplier, shift, limit, zo, lo, hi)
    return _bmm, (a.data, b.data, out.data, nb, m, k, n, za, zb, multiplier, shift, limit, zo, lo, hi)


def _bmm(ctx):
    ad, bd, od, nb, m, k, n, za, zb, mult, s, lim, zo, lo, hi = ctx
    o = 0
    for bi in range(nb):
        a0 = bi * m * k
        b0 = bi * k * n
        for i in range(m):
            ai = a0 + i * k
            for j in range(n):
                acc = 0
                bj = b0 + j
                for t in range(k):
                    acc += (ad[ai + t] - za) * (bd[bj] - zb)
                    bj += n
                q = zo + requant(acc, mult, s, lim)
                od[o] = lo if q < lo else (hi if q > hi else q)
                o += 1


noalloc.mark(_bmm)

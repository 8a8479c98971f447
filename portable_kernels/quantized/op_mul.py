"""mpy_et_quant::mul.out: int8 * int8 (same shapes), requantized:
    out = clamp(zo + requant((a - za) * (b - zb)), out_min, out_max).
Does not allocate in the step (armv7-m: native/q_mul_thumb2.py where exact;
Arm: native/q_mul_thumb.py; other native ports: native/q_mul_viper.py)."""

from mpy_et import noalloc
from portable_kernels.quantized import requant as q_requant
from portable_kernels.quantized.requant import check_int8, requant, scalar_params, zero_point
from portable_kernels.util import checks
from portable_kernels.util.emitters import HAS_THUMB, THUMB2


def mul_out(a, b, a_zp, b_zp, multiplier, shift, limit, out_zp, out_min, out_max, out):
    what = "mpy_et_quant::mul"
    for t, name in ((a, "a"), (b, "b"), (out, "out")):
        check_int8(t, "%s %s" % (what, name))
    checks.same_shape(a, b, what)
    checks.same_shape(a, out, what)
    scalar_params(multiplier, shift, limit, what)
    za, zb, zo = (
        zero_point(v, "%s %s" % (what, n)) for v, n in ((a_zp, "a_zero_point"), (b_zp, "b_zero_point"), (out_zp, "out_zero_point"))
    )
    lo, hi = zero_point(out_min, what + " out_min"), zero_point(out_max, what + " out_max")
    if out.numel == 0:
        return None
    if q_requant.use_viper:
        if THUMB2:  # armv7-m: one 64-bit product per element where it is exact (else None)
            from portable_kernels.native import q_mul_thumb2

            prepared = q_mul_thumb2.prepare_mul(a, b, out, za, zb, multiplier, shift, limit, zo, lo, hi)
            if prepared is not None:
                return prepared
        if HAS_THUMB:  # Arm: the same integers in assembler, the step an assembler function
            from portable_kernels.native import q_mul_thumb as q_mul_viper
        else:
            from portable_kernels.native import q_mul_viper

        return q_mul_viper.prepare_mul(a, b, out, za, zb, multiplier, shift, limit, zo, lo, hi)
    return _mul, (a.data, b.data, out.data, out.numel, za, zb, multiplier, shift, limit, zo, lo, hi)


def _mul(ctx):
    ad, bd, od, n, za, zb, m, s, lim, zo, lo, hi = ctx
    for i in range(n):
        q = zo + requant((ad[i] - za) * (bd[i] - zb), m, s, lim)
        od[i] = lo if q < lo else (hi if q > hi else q)


noalloc.mark(_mul)

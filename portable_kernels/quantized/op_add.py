"""mpy_et_quant::add.out: int8 + int8 (same shapes), requantized:
    out = clamp(zo + requant((a - za) * ma + (b - zb) * mb), out_min, out_max)
with |ma|, |mb| <= 2**14 (each input's scale over the larger one; sub is an
add with mb negated). Does not allocate in the step."""

from mpy_et import noalloc
from portable_kernels.quantized import requant as q_requant
from portable_kernels.quantized.requant import check_int8, requant, scalar_params, zero_point
from portable_kernels.util import checks
from portable_kernels.util.emitters import HAS_THUMB, THUMB2


def add_out(a, b, a_zp, a_mult, b_zp, b_mult, multiplier, shift, limit, out_zp, out_min, out_max, out):
    what = "mpy_et_quant::add"
    for t, name in ((a, "a"), (b, "b"), (out, "out")):
        check_int8(t, "%s %s" % (what, name))
    checks.same_shape(a, b, what)
    checks.same_shape(a, out, what)
    for v, name in ((a_mult, "a_multiplier"), (b_mult, "b_multiplier")):
        if not isinstance(v, int) or not -(1 << 14) <= v <= 1 << 14:
            checks.fail("%s: %s must be an int in -2**14..2**14, got %r" % (what, name, v))
    scalar_params(multiplier, shift, limit, what)
    zs = [zero_point(v, "%s %s" % (what, n)) for v, n in ((a_zp, "a_zero_point"), (b_zp, "b_zero_point"), (out_zp, "out_zero_point"))]
    lo, hi = zero_point(out_min, what + " out_min"), zero_point(out_max, what + " out_max")
    if out.numel == 0:
        return None
    if q_requant.use_viper:
        if THUMB2:  # armv7-m: one 64-bit product per element where it is exact (else None)
            from portable_kernels.native import q_add_thumb2

            prepared = q_add_thumb2.prepare_add(a, b, out, zs[0], a_mult, zs[1], b_mult, multiplier, shift, limit, zs[2], lo, hi)
            if prepared is not None:
                return prepared
        if HAS_THUMB:  # Arm: the same integers in assembler
            from portable_kernels.native import q_add_thumb as q_add_viper
        else:
            from portable_kernels.native import q_add_viper

        return q_add_viper.prepare_add(a, b, out, zs[0], a_mult, zs[1], b_mult, multiplier, shift, limit, zs[2], lo, hi)
    return _add, (a.data, b.data, out.data, out.numel, zs[0], a_mult, zs[1], b_mult, multiplier, shift, limit, zs[2], lo, hi)


def _add(ctx):
    ad, bd, od, n, za, ma, zb, mb, m, s, lim, zo, lo, hi = ctx
    for i in range(n):
        q = zo + requant((ad[i] - za) * ma + (bd[i] - zb) * mb, m, s, lim)
        od[i] = lo if q < lo else (hi if q > hi else q)


noalloc.mark(_add)

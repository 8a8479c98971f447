"""cortex_m::quantized_mul.out (arm_elementwise_mul_s8): (a - a_zp) * (b - b_zp),
requantized, + zp, clamped to int8. Broadcasting through strides; the step
allocates nothing."""

from mpy_et import dim_orders, noalloc
from portable_kernels.cortex_m import binary, cmsis, conv
from portable_kernels.util import checks


def quantized_mul_out(a, a_zp, b, b_zp, out_zp, out_mult, out_shift, out):
    what = "cortex_m::quantized_mul"
    for t, name in ((a, "self"), (b, "other"), (out, "out")):
        conv.check_q(t, what + " " + name)
    geo = binary.plan(a, b, out, what)
    for v in (a_zp, b_zp, out_zp):
        if not isinstance(v, int):
            checks.fail("%s: zero point %r must be an int" % (what, v))
    if out.numel == 0:
        return None
    return _mul, (a.data, b.data, out.data, geo, a_zp, b_zp, cmsis.params(out_mult, out_shift, what), out_zp)


def _mul(ctx):
    ad, bd, od, geo, za, zb, rq, zp = ctx
    sizes, sa, sb, so = geo
    for i in range(sizes[0]):
        for j in range(sizes[1]):
            for k in range(sizes[2]):
                pa = i * sa[0] + j * sa[1] + k * sa[2]
                pb = i * sb[0] + j * sb[1] + k * sb[2]
                po = i * so[0] + j * so[1] + k * so[2]
                for m in range(sizes[3]):
                    v = cmsis.requantize((ad[pa + m * sa[3]] - za) * (bd[pb + m * sb[3]] - zb), rq) + zp
                    od[po + m * so[3]] = -128 if v < -128 else 127 if v > 127 else v


noalloc.mark(_mul)


dim_orders.mark(quantized_mul_out)

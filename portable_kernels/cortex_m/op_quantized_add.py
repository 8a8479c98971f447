"""cortex_m::quantized_add.out (arm_elementwise_add_s8): each input is
requantized from (x - zp) << 20 with its own multiplier/shift, the two are
added and requantized to the output, + zp, clamped to the activation range.
An input's term depends only on its int8 value, so both are 256-entry tables
made at load; the step adds and requantizes, allocating nothing."""

from mpy_et import dim_orders, noalloc
from portable_kernels.cortex_m import binary, cmsis, conv
from portable_kernels.util import checks


def quantized_add_out(a, a_zp, a_mult, a_shift, b, b_zp, b_mult, b_shift, out_zp, out_mult, out_shift, act_min, act_max, out):
    what = "cortex_m::quantized_add"
    for t, name in ((a, "self"), (b, "other"), (out, "out")):
        conv.check_q(t, what + " " + name)
    geo = binary.plan(a, b, out, what)
    for v in (a_zp, b_zp, out_zp):
        if not isinstance(v, int):
            checks.fail("%s: zero point %r must be an int" % (what, v))
    ta = term_table(a_zp, cmsis.params(a_mult, a_shift, what))
    tb = term_table(b_zp, cmsis.params(b_mult, b_shift, what))
    lo, hi = conv.act_range(act_min, act_max, what)
    if out.numel == 0:
        return None
    return _add, (a.data, b.data, out.data, geo, ta, tb, cmsis.params(out_mult, out_shift, what), out_zp, lo, hi)


def term_table(zp, rq):
    return [cmsis.requantize((v - zp) << 20, rq) for v in range(-128, 128)]


def _add(ctx):
    ad, bd, od, geo, ta, tb, rq, zp, lo, hi = ctx
    sizes, sa, sb, so = geo
    for i in range(sizes[0]):
        for j in range(sizes[1]):
            for k in range(sizes[2]):
                pa = i * sa[0] + j * sa[1] + k * sa[2]
                pb = i * sb[0] + j * sb[1] + k * sb[2]
                po = i * so[0] + j * so[1] + k * so[2]
                for m in range(sizes[3]):
                    v = cmsis.requantize(ta[ad[pa + m * sa[3]] + 128] + tb[bd[pb + m * sb[3]] + 128], rq) + zp
                    od[po + m * so[3]] = lo if v < lo else hi if v > hi else v


noalloc.mark(_add)


dim_orders.mark(quantized_add_out)

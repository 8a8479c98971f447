"""The cortex_m:: convolutions' shared load-time part and reference step.

acc = bias[o] + sum((x + input_offset) * w) over the taps inside the input
(padding contributes 0, as torch's conv2d of the offset input), then CMSIS-NN
requantization per output channel, + output_offset, clamped. Activations are
read and written through their dim orders' strides (NCHW, NHWC, ...); weights
are read in place from the program (OHWI for conv2d, IHWO [1, KH, KW, C] for
depthwise). The step allocates nothing while accumulators stay within
+-2**30 (cmsis.requantize).
"""

from array import array

from mpy_et import dtypes, noalloc
from mpy_et.tensor import addressable
from portable_kernels.cortex_m import cmsis, layout
from portable_kernels.quantized import requant as q_requant
from portable_kernels.util import checks, emitters


def check_q(t, what, dtype=dtypes.CHAR):
    checks.is_tensor(t, what)
    checks.dtype_in(t, (dtype,), what)


def prepare(
    x, weight, bias, stride, padding, dilation, input_offset, output_offset, mults, shifts, act_min, act_max, out, what, depthwise, nhwc
):
    """Checks and the step's context for conv2d (depthwise=False) and depthwise conv2d."""
    check_q(x, what + " input")
    check_q(weight, what + " weight")
    check_q(out, what + " out")
    layout.contiguous(weight, what + " weight")
    (n, c, h, w), xs = layout.nchw(x, what + " input", nhwc)
    checks.dim_count(weight, 4, what + " weight")
    sh, sw = checks.int_list(stride, 2, what + " stride", 1)
    ph, pw = checks.int_list(padding, 2, what + " padding", 0)
    dh, dw = checks.int_list(dilation, 2, what + " dilation", 1)
    if depthwise:
        one, kh, kw, co = weight.sizes
        if one != 1 or co % c:
            checks.fail("%s: weight %s must be IHWO [1, KH, KW, C_out], C_out a multiple of %d" % (what, checks.shape_str(weight), c))
        ig, og = 1, co // c
        ws = (1, kw * co, co, 0)
    else:
        co, kh, kw, ig = weight.sizes
        if ig < 1 or c % ig:
            checks.fail("%s: weight %s (OHWI) does not divide %d input channels" % (what, checks.shape_str(weight), c))
        groups = c // ig
        if co % groups:
            checks.fail("%s: %d output channels are not a multiple of %d groups" % (what, co, groups))
        og = co // groups
        ws = (kh * kw * ig, kw * ig, ig, 1)
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    (on, oc, ohh, oww), os_ = layout.nchw(out, what + " out", nhwc)
    if (on, oc, ohh, oww) != (n, co, oh, ow):
        checks.fail("%s: out %s, expected %s" % (what, checks.shape_str(out), [n, co, oh, ow]))
    bd = bias_data(bias, co, what)
    rq = cmsis.channel_params(mults, shifts, co, what)
    lo, hi = act_range(act_min, act_max, what)
    if out.numel == 0:
        return None
    geo = (n, c, h, w, xs[0], xs[1], xs[2], xs[3], co, oh, ow, os_[0], os_[1], os_[2], os_[3], kh, kw, sh, sw, ph, pw, dh, dw)
    ctx = (x.data, weight.data, bd, out.data, rq, geo, ig, og, ws, input_offset, output_offset, lo, hi)
    # the fast paths sum in machine words: only where no sum can reach 2**31
    bound = ig * kh * kw * 255 * 256 + (_largest(bd, co) if bd is not None else 0)
    if q_requant.use_viper and bound < 0x7FFFFFFF and addressable(x, weight, bias, out):
        return viper_step(x, weight, bias, out, rq, geo + (ig, og) + tuple(ws) + (input_offset, output_offset, lo, hi), ctx, bound)
    return _conv, ctx


def viper_step(x, weight, bias, out, rq, geo, ctx, bound):
    """The viper fast path (native/cm_conv_nhwc_viper.py) over the same geometry;
    the reference step `_conv` (ctx) where an accumulator leaves its range."""
    from portable_kernels.native import cm_conv_nhwc_viper

    table = rq
    g = array("i", geo + (1 if bias is not None else 0, 0, 0))
    b = bias.buffer if bias is not None else g
    co, ig, og, wso, wsc = geo[8], geo[23], geo[24], geo[25], geo[28]
    dots, ctl = g, g  # not called unless g says so
    # Arm: each tap's dot products in Thumb code, when channels are contiguous
    # in the input (NHWC) and in the weights (OHWI, groups 1)
    if emitters.HAS_THUMB and geo[5] == 1 and wsc == 1 and og == co and ig >= 4:
        from portable_kernels.native import cm_dots_s8_thumb

        dots = cm_dots_s8_thumb.dots
        ctl = array("i", [0, 0, ig, co, wso, geo[29], 0, 0, 0, 0])
        g[34] = 1
    elif emitters.HAS_THUMB and wso == 1 and ig == 1 and (geo[1] == 1 or (og == 1 and geo[5] == 1)):
        # depthwise, channels-last: every output channel's product of one tap at once
        from portable_kernels.native import cm_dots_s8_thumb

        dots = cm_dots_s8_thumb.macs
        ctl = array("i", [0, 0, co, 0 if geo[1] == 1 else 1, geo[29], 0])
        g[34] = 1
    acc = array("i", bytes(4 * co))
    requant, rctl = g, g  # not called unless g says so
    lefts = max(rq[6 * i + 3] for i in range(co))
    rights = max(rq[6 * i + 4] for i in range(co))
    if emitters.HAS_THUMB and rights <= 30 and bound << lefts < 0x7FFFFFFF:
        # Arm: each pixel's requantization with SMULL (exact: no shifted sum reaches 2**31)
        from portable_kernels.native import cm_dots_s8_thumb

        requant = cm_dots_s8_thumb.requant
        rctl = array("i", [co, 0, geo[12], geo[30], geo[31], geo[32], 0, 0, 0, 0])
        g[35] = 1
    args = (x.buffer, weight.buffer, b, out.buffer, table, g, dots, ctl, acc, requant, rctl)
    return _viper, (cm_conv_nhwc_viper.conv, args, ctx)


def _viper(ctx):
    fn, a, ref = ctx
    if fn(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10]):
        _conv(ref)


def _largest(d, n):
    m = 0
    for i in range(n):
        v = d[i] if d[i] >= 0 else -d[i]
        if v > m:
            m = v
    return m


def bias_data(bias, n, what):
    if bias is None:
        return None
    check_q(bias, what + " bias", dtypes.INT)
    if bias.numel != n:
        checks.fail("%s: bias %s for %d output channels" % (what, checks.shape_str(bias), n))
    return bias.data


def act_range(lo, hi, what):
    if not (isinstance(lo, int) and isinstance(hi, int) and -128 <= lo <= hi <= 127):
        checks.fail("%s: activation range [%r, %r] must be ints within [-128, 127]" % (what, lo, hi))
    return lo, hi


def _conv(ctx):
    xd, wd, bd, od, rq, geo, ig, og, ws, xoff, ooff, lo, hi = ctx
    n, c, h, w, xsn, xsc, xsh, xsw, co, oh, ow, osn, osc, osh, osw, kh, kw, sh, sw, ph, pw, dh, dw = geo
    wso, wsy, wsx, wsc = ws
    for b in range(n):
        for o in range(co):
            xc = b * xsn + (o // og) * ig * xsc
            acc0 = bd[o] if bd is not None else 0
            wo = o * wso
            ob = b * osn + o * osc
            for oy in range(oh):
                for ox in range(ow):
                    acc = acc0
                    for ky in range(kh):
                        iy = oy * sh - ph + ky * dh
                        if 0 <= iy < h:
                            for kx in range(kw):
                                ix = ox * sw - pw + kx * dw
                                if 0 <= ix < w:
                                    xi = xc + iy * xsh + ix * xsw
                                    wi = wo + ky * wsy + kx * wsx
                                    for ci in range(ig):
                                        acc += (xd[xi + ci * xsc] + xoff) * wd[wi + ci * wsc]
                    v = cmsis.requantize(acc, rq, o) + ooff
                    od[ob + oy * osh + ox * osw] = lo if v < lo else hi if v > hi else v


noalloc.mark(_conv, _viper)

"""cortex_m::quantized_transpose_conv2d(_nhwc).out's shared part: int8 transposed
convolution (groups 1, as ExecuTorch's reference allows), weight [C_out, KH,
KW, C_in] read in place; out[o, oy, ox] = bias[o] + sum over the input pixels
and taps with oy = iy * sh - ph + ky * dh (likewise x) of (x + input_offset) *
w, then per-channel CMSIS-NN requantization, + output_offset, clamped.
ExecuTorch's reference accumulates in float32, exact while sums stay below
2**24 (here always exact). The step allocates nothing."""

from mpy_et import noalloc
from portable_kernels.cortex_m import cmsis, conv, layout
from portable_kernels.util import checks


def prepare(x, weight, bias, stride, padding, output_padding, dilation, xoff, ooff, mults, shifts, act_min, act_max, out, what, nhwc):
    conv.check_q(x, what + " input")
    conv.check_q(weight, what + " weight")
    conv.check_q(out, what + " out")
    layout.contiguous(weight, what + " weight")
    (n, c, h, w), xs = layout.nchw(x, what + " input", nhwc)
    checks.dim_count(weight, 4, what + " weight")
    co, kh, kw, ci = weight.sizes
    if ci != c:
        checks.not_supported("%s: weight %s: only groups 1 (C_in %d in its last dim)" % (what, checks.shape_str(weight), c))
    sh, sw = checks.int_list(stride, 2, what + " stride", 1)
    ph, pw = checks.int_list(padding, 2, what + " padding", 0)
    eh, ew = checks.int_list(output_padding, 2, what + " output_padding", 0)
    dh, dw = checks.int_list(dilation, 2, what + " dilation", 1)
    oh = (h - 1) * sh - 2 * ph + dh * (kh - 1) + eh + 1
    ow = (w - 1) * sw - 2 * pw + dw * (kw - 1) + ew + 1
    osz, os_ = layout.nchw(out, what + " out", nhwc)
    if osz != (n, co, oh, ow):
        checks.fail("%s: out %s, expected %s" % (what, checks.shape_str(out), [n, co, oh, ow]))
    bd = conv.bias_data(bias, co, what)
    rq = cmsis.channel_params(mults, shifts, co, what)
    lo, hi = conv.act_range(act_min, act_max, what)
    if out.numel == 0:
        return None
    geo = (n, c, h, w, xs[0], xs[1], xs[2], xs[3], co, oh, ow, os_[0], os_[1], os_[2], os_[3], kh, kw, sh, sw, ph, pw, dh, dw)
    return _tconv, (x.data, weight.data, bd, out.data, rq, geo, xoff, ooff, lo, hi)


def _tconv(ctx):
    xd, wd, bd, od, rq, geo, xoff, ooff, lo, hi = ctx
    n, c, h, w, xsn, xsc, xsh, xsw, co, oh, ow, osn, osc, osh, osw, kh, kw, sh, sw, ph, pw, dh, dw = geo
    for b in range(n):
        for o in range(co):
            acc0 = bd[o] if bd is not None else 0
            ob = b * osn + o * osc
            for oy in range(oh):
                for ox in range(ow):
                    acc = acc0
                    for ky in range(kh):
                        ty = oy + ph - ky * dh
                        iy = ty // sh
                        if ty >= 0 and iy * sh == ty and iy < h:
                            for kx in range(kw):
                                tx = ox + pw - kx * dw
                                ix = tx // sw
                                if tx >= 0 and ix * sw == tx and ix < w:
                                    xi = b * xsn + iy * xsh + ix * xsw
                                    wi = ((o * kh + ky) * kw + kx) * c
                                    for ch in range(c):
                                        acc += (xd[xi + ch * xsc] + xoff) * wd[wi + ch]
                    v = cmsis.requantize(acc, rq, o) + ooff
                    od[ob + oy * osh + ox * osw] = lo if v < lo else hi if v > hi else v


noalloc.mark(_tconv)

"""mpy_et_quant::conv2d.out: int8 convolution (regular, depthwise, pointwise;
stride, padding, dilation, groups), per-channel requantization, clamp.
Also the engine of conv1d (quantized/op_conv1d.py) and linear (quantized/op_linear.py).

    out = clamp(zo + requant(bias + sum((x - zx) * w)), out_min, out_max)

Reference step (every port): for each output pixel the window is gathered
once into a preallocated list as (x - zx), padding as 0, then dotted with
each output channel's weights. Fast steps (ports with a native emitter,
native/q_conv_viper.py): the same integers with unsigned bytes, a row of patches
at a time (gathered one patch position at a time for the whole row), 8
output channels per pass; 3x3 depthwise from padded planes
(native/q_conv_dw_viper.py); 3x3 with 1-2 output channels per group or one input
channel read in place (native/q_conv_direct_viper.py, ports without asm_thumb). On
Arm the row gather, the dots (2 channels per pass), the depthwise windows
and the requantization are asm_thumb (native/q_gather_thumb.py, native/q_dot_thumb.py,
native/q_dw_thumb.py, native/q_requant_thumb.py). All bit-identical to
host_tools/quantize/ref.py. No step allocates.
"""

from mpy_et import dtypes, noalloc
from portable_kernels.quantized import requant as q_requant
from portable_kernels.quantized.requant import check_int8, requant, zero_point
from portable_kernels.util import checks


def conv2d_out(x, weight, bias, requant_t, stride, padding, dilation, groups, x_zp, out_zp, out_min, out_max, out):
    what = "mpy_et_quant::conv2d"
    nd = len(x.sizes) if hasattr(x, "sizes") else 0
    if nd not in (3, 4):
        checks.fail("%s: input must be int8 (N, C, H, W) or (N, C, L), got %r" % (what, x))
    return prepare(x, weight, bias, requant_t, stride, padding, dilation, groups, x_zp, out_zp, out_min, out_max, out, what)


def prepare(x, weight, bias, requant_t, stride, padding, dilation, groups, x_zp, out_zp, out_min, out_max, out, what):
    """Checks and the (step, ctx) of a convolution; linear is a 1x1 one."""
    for t, name in ((x, "input"), (weight, "weight"), (out, "out")):
        check_int8(t, "%s %s" % (what, name))
    nd = len(x.sizes)
    if len(weight.sizes) != nd:
        checks.fail("%s: weight %s must have as many dims as input %s" % (what, checks.shape_str(weight), checks.shape_str(x)))
    sp = nd - 2
    stride = checks.int_list(stride, sp, what + " stride", 1)
    padding = checks.int_list(padding, sp, what + " padding", 0)
    dilation = checks.int_list(dilation, sp, what + " dilation", 1)
    if not isinstance(groups, int) or groups < 1:
        checks.fail("%s: groups must be a positive int, got %r" % (what, groups))
    if nd == 3:
        n, c, h, w = x.sizes[0], x.sizes[1], 1, x.sizes[2]
        oc, cpg, kh, kw = weight.sizes[0], weight.sizes[1], 1, weight.sizes[2]
        sh, sw, ph, pw, dh, dw = 1, stride[0], 0, padding[0], 1, dilation[0]
    else:
        n, c, h, w = x.sizes
        oc, cpg, kh, kw = weight.sizes
        sh, sw = stride
        ph, pw = padding
        dh, dw = dilation
    if c % groups or oc % groups or cpg != c // groups:
        checks.fail("%s: input %s, weight %s and groups %d do not fit" % (what, checks.shape_str(x), checks.shape_str(weight), groups))
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if oh < 1 or ow < 1:
        checks.fail("%s: kernel %s is larger than the padded input %s" % (what, checks.shape_str(weight), checks.shape_str(x)))
    checks.out_shape(out, (n, oc, ow) if nd == 3 else (n, oc, oh, ow), what)
    geom = (n, groups, oc // groups, cpg, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow)
    return _make(x, weight, bias, requant_t, geom, x_zp, out_zp, out_min, out_max, out, what)


def _make(x, weight, bias, requant_t, geom, x_zp, out_zp, out_min, out_max, out, what):
    oc = weight.sizes[0]
    k = weight.numel // oc
    checks.is_tensor(bias, what + " bias")
    checks.dtype_in(bias, (dtypes.INT,), what + " bias")
    if tuple(bias.sizes) != (oc,):
        checks.fail("%s: bias must be int32[%d], got %s" % (what, oc, checks.shape_str(bias)))
    zx = zero_point(x_zp, what + " x_zero_point")
    zo = zero_point(out_zp, what + " out_zero_point")
    lo = zero_point(out_min, what + " out_min")
    hi = zero_point(out_max, what + " out_max")
    if lo > hi:
        checks.fail("%s: out_min %d > out_max %d" % (what, lo, hi))
    ms, ss, ls = q_requant.channel_params(requant_t, oc, what)
    if out.numel == 0:
        return None
    bd = bias.data
    if q_requant.use_viper:
        from portable_kernels.native import q_conv_viper

        key = (id(bias.buf), bias.offset, id(requant_t.buf), requant_t.offset)  # the constants' places
        return q_conv_viper.prepare(x, weight, [bd[i] for i in range(oc)], ms, ss, ls, geom, zx, zo, lo, hi, out, what, key)
    biases = [bd[i] for i in range(oc)]
    return _conv_ref, (x.data, weight.data, out.data, [0] * k, biases, ms, ss, ls) + geom + (zx, zo, lo, hi)


def _conv_ref(ctx):
    xd, wd, od, col, biases, ms, ss, ls, n, groups, opg, cpg, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, zx, zo, lo, hi = ctx
    hw = h * w
    k_n = cpg * kh * kw
    oc_n = groups * opg
    for b in range(n):
        for g in range(groups):
            xb = (b * groups + g) * cpg * hw
            for oy in range(oh):
                for ox in range(ow):
                    k = 0
                    for c in range(cpg):
                        cb = xb + c * hw
                        for ky in range(kh):
                            iy = oy * sh - ph + ky * dh
                            rb = cb + iy * w
                            inside = 0 <= iy < h
                            for kx in range(kw):
                                ix = ox * sw - pw + kx * dw
                                col[k] = xd[rb + ix] - zx if inside and 0 <= ix < w else 0
                                k += 1
                    oc = g * opg
                    for _ in range(opg):
                        acc = biases[oc]
                        wo = oc * k_n
                        for k in range(k_n):
                            acc += col[k] * wd[wo + k]
                        q = zo + requant(acc, ms[oc], ss[oc], ls[oc])
                        od[((b * oc_n + oc) * oh + oy) * ow + ox] = lo if q < lo else (hi if q > hi else q)
                        oc += 1


noalloc.mark(_conv_ref)

"""mpy_et_quant::max_pool2d.out: int8 max pooling (NCHW; stride, padding,
dilation; padded taps never win). Does not allocate in the step."""

from mpy_et import noalloc
from portable_kernels.quantized import requant as q_requant
from portable_kernels.quantized.requant import check_int8
from portable_kernels.util import checks
from portable_kernels.util.emitters import HAS_THUMB


def max_pool2d_out(x, kernel_size, stride, padding, dilation, out):
    what = "mpy_et_quant::max_pool2d"
    check_int8(x, what + " input")
    check_int8(out, what + " out")
    checks.dim_count(x, 4, what + " input")
    kh, kw = checks.int_list(kernel_size, 2, what + " kernel_size", 1)
    sh, sw = checks.int_list(stride, 2, what + " stride", 1)
    ph, pw = checks.int_list(padding, 2, what + " padding", 0)
    dh, dw = checks.int_list(dilation, 2, what + " dilation", 1)
    n, c, h, w = x.sizes
    if 2 * ph > kh or 2 * pw > kw:
        checks.fail("%s: padding %s must be at most half the kernel %s" % (what, [ph, pw], [kh, kw]))
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if oh < 1 or ow < 1:
        checks.fail("%s: kernel %s larger than the padded input %s" % (what, [kh, kw], checks.shape_str(x)))
    checks.out_shape(out, (n, c, oh, ow), what)
    if out.numel == 0:
        return None
    if q_requant.use_viper and HAS_THUMB and ph == 0 and pw == 0:  # Arm: the step an assembler function
        from portable_kernels.native import q_bytes_thumb

        return q_bytes_thumb.prepare_max_pool(x, out, n * c, h, w, kh, kw, sh, sw, dh, dw, oh, ow)
    if q_requant.use_viper:
        from portable_kernels.native import q_max_pool_viper

        return q_max_pool_viper.prepare_max_pool(x, out, n * c, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow)
    return _pool, (x.data, out.data, n * c, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow)


def _pool(ctx):
    xd, od, planes, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow = ctx
    oi = 0
    for p in range(planes):
        base = p * h * w
        for oy in range(oh):
            for ox in range(ow):
                best = -129
                for ky in range(kh):
                    iy = oy * sh - ph + ky * dh
                    if 0 <= iy < h:
                        rb = base + iy * w
                        for kx in range(kw):
                            ix = ox * sw - pw + kx * dw
                            if 0 <= ix < w:
                                v = xd[rb + ix]
                                if v > best:
                                    best = v
                od[oi] = best
                oi += 1


noalloc.mark(_pool)

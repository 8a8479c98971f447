"""mpy_et_quant::avg_pool2d.out: int8 average pooling without padding (global
average pooling and means over H, W included), the window count folded
into the requantization:
    out = clamp(zo + requant(sum(x - zx)), -128, 127).
Viper step (native/q_pool_viper.py) where the port has a native emitter. Does not
allocate in the step."""

from mpy_et import noalloc
from portable_kernels.quantized import requant as q_requant
from portable_kernels.quantized.requant import check_int8, requant, scalar_params, zero_point
from portable_kernels.util import checks


def avg_pool2d_out(x, kernel_size, stride, x_zp, multiplier, shift, limit, out_zp, out):
    what = "mpy_et_quant::avg_pool2d"
    check_int8(x, what + " input")
    check_int8(out, what + " out")
    checks.dim_count(x, 4, what + " input")
    kh, kw = checks.int_list(kernel_size, 2, what + " kernel_size", 1)
    sh, sw = checks.int_list(stride, 2, what + " stride", 1)
    scalar_params(multiplier, shift, limit, what)
    zx, zo = zero_point(x_zp, what + " x_zero_point"), zero_point(out_zp, what + " out_zero_point")
    n, c, h, w = x.sizes
    oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
    if oh < 1 or ow < 1:
        checks.fail("%s: kernel %s larger than the input %s" % (what, [kh, kw], checks.shape_str(x)))
    checks.out_shape(out, (n, c, oh, ow), what)
    if out.numel == 0:
        return None
    if q_requant.use_viper:
        from portable_kernels.native import q_pool_viper

        return q_pool_viper.prepare_avg(x, out, n * c, h, w, kh, kw, sh, sw, oh, ow, zx, multiplier, shift, limit, zo)
    return _pool, (x.data, out.data, n * c, h, w, kh, kw, sh, sw, oh, ow, zx * kh * kw, multiplier, shift, limit, zo)


def _pool(ctx):
    xd, od, planes, h, w, kh, kw, sh, sw, oh, ow, bias, m, s, lim, zo = ctx
    oi = 0
    for p in range(planes):
        base = p * h * w
        for oy in range(oh):
            for ox in range(ow):
                acc = -bias
                rb = base + oy * sh * w + ox * sw
                for _ in range(kh):
                    for i in range(rb, rb + kw):
                        acc += xd[i]
                    rb += w
                q = zo + requant(acc, m, s, lim)
                od[oi] = -128 if q < -128 else (127 if q > 127 else q)
                oi += 1


noalloc.mark(_pool)

"""The cortex_m:: poolings' shared part: output size (ceil_mode as torch), reference steps.

avg: ExecuTorch's reference dequantizes to float32 ((x - zp) * scale),
averages (torch's avg_pool2d: the window's taps inside the input summed in
row-major order in float32, count_include_pad=False), and quantizes back
with the same scale. The scale cancels: the result is zp + S / n rounded
(S the sum of x - zp, n the count), except where S / n is exactly k + 1/2,
where float32 error decides. So the step rounds S / n in integers and, at
an exact tie only, replays the reference's float32 operations in exact
integer arithmetic: bit for bit, for windows of up to 180
taps (beyond that float32 error could reach a non-tie; larger windows always
replay). The replay (cortex_m/f32_small.py) stays in small ints and
allocates nothing, so neither step does. max: the largest tap, clamped to the activation
range; does not allocate.
"""

from array import array

from mpy_et import noalloc
from mpy_et.port import const
from mpy_et.tensor import addressable
from portable_kernels.cortex_m import conv, f32, f32_small, layout
from portable_kernels.quantized import requant as q_requant
from portable_kernels.util import checks

_TIES = const(64)  # ties the viper step lists per call (beyond: the reference step)


def out_size(n, k, s, p, d, ceil):
    span = d * (k - 1) + 1
    if ceil:
        o = -(-(n + 2 * p - span) // s) + 1
        if (o - 1) * s >= n + p:
            o -= 1
    else:
        o = (n + 2 * p - span) // s + 1
    return o


def geometry(x, kernel_size, stride, padding, dilation, ceil_mode, out, what, nhwc):
    conv.check_q(x, what + " input")
    conv.check_q(out, what + " out")
    (n, c, h, w), xs = layout.nchw(x, what + " input", nhwc)
    kh, kw = pair(kernel_size, what + " kernel_size", 1)
    sh, sw = pair(stride, what + " stride", 1)
    ph, pw = pair(padding, what + " padding", 0)
    dh, dw = pair(dilation, what + " dilation", 1)
    checks.flag(ceil_mode, what + " ceil_mode")
    if 2 * ph > kh or 2 * pw > kw:
        checks.fail("%s: padding %s must be at most half the kernel %s" % (what, [ph, pw], [kh, kw]))
    oh = out_size(h, kh, sh, ph, dh, ceil_mode)
    ow = out_size(w, kw, sw, pw, dw, ceil_mode)
    if oh < 1 or ow < 1:
        checks.fail("%s: kernel %s larger than the padded input %s" % (what, [kh, kw], checks.shape_str(x)))
    osz, os_ = layout.nchw(out, what + " out", nhwc)
    if osz != (n, c, oh, ow):
        checks.fail("%s: out %s, expected %s" % (what, checks.shape_str(out), [n, c, oh, ow]))
    return (n, c, h, w, xs[0], xs[1], xs[2], xs[3], oh, ow, os_[0], os_[1], os_[2], os_[3], kh, kw, sh, sw, ph, pw, dh, dw)


def pair(v, what, minimum):
    """An int list of 1 or 2 entries (ExecuTorch's _ensure_tuple2) as a pair."""
    if isinstance(v, (list, tuple)) and len(v) == 1:
        v = (v[0], v[0])
    return checks.int_list(v, 2, what, minimum)


def avg_step(x, out, geo, zp, multiplier, shift):
    scale = f32.round_f32(multiplier, shift - 31)  # multiplier * 2**shift / 2**31 as float32
    tm, te = array("i", bytes(4 * 511)), array("i", bytes(4 * 511))
    for d in range(511):
        tm[d], te[d] = f32.mul(f32.round_f32(d - 255, 0), scale)
    sm, se = scale
    if sm < 0x800000:  # as a 24-bit mantissa
        while sm < 0x800000:
            sm <<= 1
            se -= 1
    ctx = (x.data, out.data, geo, zp, (tm, te, sm, se), [0, 0])
    if q_requant.use_viper and addressable(x, out):
        from portable_kernels.native import cm_avg_pool_viper

        g = array("i", geo + (zp, _TIES))
        ties = array("i", bytes(16 * _TIES))
        return _avg_viper, (cm_avg_pool_viper.avg, x.buffer, out.buffer, g, ties, ctx)
    return _avg, ctx


def _avg_viper(ctx):
    fn, xb, ob, g, ties, ref = ctx
    found = fn(xb, ob, g, ties)
    if found < 0:
        _avg(ref)
        return
    xd, od, geo, zp, terms, box = ref
    tm, te, sm, se = terms
    n, c, h, w, xsn, xsc, xsh, xsw, oh, ow, osn, osc, osh, osw, kh, kw, sh, sw, ph, pw, dh, dw = geo
    for i in range(found):
        b = ties[4 * i]
        ch = ties[4 * i + 1]
        oy = ties[4 * i + 2]
        ox = ties[4 * i + 3]
        v = zp + f32_small.window_average(
            xd, b * xsn + ch * xsc, xsh, xsw, h, w, oy * sh - ph, ox * sw - pw, kh, kw, dh, dw, zp, tm, te, sm, se, box
        )
        od[b * osn + ch * osc + oy * osh + ox * osw] = -128 if v < -128 else 127 if v > 127 else v


def _avg(ctx):
    xd, od, geo, zp, terms, box = ctx
    tm, te, sm, se = terms
    n, c, h, w, xsn, xsc, xsh, xsw, oh, ow, osn, osc, osh, osw, kh, kw, sh, sw, ph, pw, dh, dw = geo
    for b in range(n):
        for ch in range(c):
            xc = b * xsn + ch * xsc
            oc = b * osn + ch * osc
            for oy in range(oh):
                for ox in range(ow):
                    s = 0
                    cnt = 0
                    for ky in range(kh):
                        iy = oy * sh - ph + ky * dh
                        if 0 <= iy < h:
                            for kx in range(kw):
                                ix = ox * sw - pw + kx * dw
                                if 0 <= ix < w:
                                    s += xd[xc + iy * xsh + ix * xsw]
                                    cnt += 1
                    s -= cnt * zp
                    q = s // cnt
                    r2 = 2 * (s - q * cnt)
                    if r2 == cnt or cnt > 180:
                        v = zp + f32_small.window_average(
                            xd, xc, xsh, xsw, h, w, oy * sh - ph, ox * sw - pw, kh, kw, dh, dw, zp, tm, te, sm, se, box
                        )
                    else:
                        v = q + zp + (1 if r2 > cnt else 0)
                    od[oc + oy * osh + ox * osw] = -128 if v < -128 else 127 if v > 127 else v


def max_step(x, out, geo, lo, hi):
    return _max, (x.data, out.data, geo, lo, hi)


def _max(ctx):
    xd, od, geo, lo, hi = ctx
    n, c, h, w, xsn, xsc, xsh, xsw, oh, ow, osn, osc, osh, osw, kh, kw, sh, sw, ph, pw, dh, dw = geo
    for b in range(n):
        for ch in range(c):
            xc = b * xsn + ch * xsc
            oc = b * osn + ch * osc
            for oy in range(oh):
                for ox in range(ow):
                    best = -129
                    for ky in range(kh):
                        iy = oy * sh - ph + ky * dh
                        if 0 <= iy < h:
                            for kx in range(kw):
                                ix = ox * sw - pw + kx * dw
                                if 0 <= ix < w:
                                    v = xd[xc + iy * xsh + ix * xsw]
                                    if v > best:
                                        best = v
                    od[oc + oy * osh + ox * osw] = lo if best < lo else hi if best > hi else best


noalloc.mark(_avg, _avg_viper, _max)

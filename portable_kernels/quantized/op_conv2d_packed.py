"""mpy_et_quant::conv2d_packed.out: int8 convolution (regular, depthwise,
pointwise; stride, padding, dilation, groups), per-channel requantization,
clamp. Also the engine of conv1d_packed (quantized/op_conv1d_packed.py) and
linear_packed (quantized/op_linear_packed.py).

    out = clamp(zo + requant(bias + sum((x - zx) * w)), out_min, out_max)

The constants are read where they lie (in flash when the program is): the
weights as uint8 [O, kp] in the layout of host_tools/quantize/pack.py (w + 128,
channel pairs interleaved 4 bytes at a time, rows padded to kp = K rounded
up to 4) and a table of (C + 2**29, M, s, L, ...) per channel, C = bias -
(128 + zx) * sum(w), so every step computes
    acc = C + sum(xb * wb) - 128 * sum(xb),   xb = x + 128 (padding zx + 128).

Reference step (every port): for each output pixel the window is gathered
once into a preallocated list, then dotted with each output channel's
weights 4 bytes at a time. Fast steps (ports with a native emitter,
native/q_conv_viper.py): a row of patches at a time (gathered one patch
position at a time for the whole row), two output channels per pass; 3x3
depthwise from padded planes (native/q_conv_dw_viper.py); 3x3 with 1-2 output
channels per group or one input channel read in place
(native/q_conv_direct_viper.py, ports without asm_thumb). On Arm the row
gather, the dots, the depthwise windows and the requantization are
asm_thumb (native/q_gather_thumb.py, native/q_dot_thumb.py,
native/q_dw_thumb.py, native/q_requant_thumb.py); on Thumb-2 a 3x3
depthwise convolution is one assembler step (native/q_dw_step_thumb.py);
with the DSP extension the row is expanded once into SMLAD's halfword lanes
and a pointwise convolution reads its pixels from the input planes without
a gather (native/q_dot_dsp.py, native/q_conv_pw_viper.py). All bit-identical to
host_tools/quantize/ref.py. Nothing proportional to the weights is copied;
no step allocates.
"""

from mpy_et import dtypes, noalloc
from portable_kernels.quantized import requant as q_requant
from portable_kernels.quantized.requant import check_int8, requant, zero_point
from portable_kernels.util import checks

_OFF = 1 << 29  # the channel table's bias offset


def conv2d_packed_out(x, weight, channels, kernel_size, stride, padding, dilation, groups, x_zp, out_zp, out_min, out_max, out):
    what = "mpy_et_quant::conv2d_packed"
    if len(getattr(x, "sizes", ())) != 4:
        checks.fail("%s: input must be int8 (N, C, H, W), got %r" % (what, x))
    return prepare(x, weight, channels, kernel_size, stride, padding, dilation, groups, x_zp, out_zp, out_min, out_max, out, what)


def check_packed(weight, oc, kn, what):
    """weight must be uint8 [oc, kn rounded up to 4] (load time)."""
    checks.is_tensor(weight, what + " weight")
    checks.dtype_in(weight, (dtypes.BYTE,), what + " weight")
    kp = (kn + 3) & ~3
    if tuple(weight.sizes) != (oc, kp):
        checks.fail(
            "%s: packed weight must be uint8[%d, %d] (%d taps rounded up to 4), got %s" % (what, oc, kp, kn, checks.shape_str(weight))
        )


def prepare(x, weight, channels, kernel_size, stride, padding, dilation, groups, x_zp, out_zp, out_min, out_max, out, what):
    """Checks and the (step, ctx) of a convolution; linear is a 1x1 one."""
    for t, name in ((x, "input"), (out, "out")):
        check_int8(t, "%s %s" % (what, name))
    checks.is_tensor(weight, what + " weight")
    nd = len(x.sizes)
    sp = nd - 2
    kernel_size = checks.int_list(kernel_size, sp, what + " kernel_size", 1)
    stride = checks.int_list(stride, sp, what + " stride", 1)
    padding = checks.int_list(padding, sp, what + " padding", 0)
    dilation = checks.int_list(dilation, sp, what + " dilation", 1)
    if not isinstance(groups, int) or groups < 1:
        checks.fail("%s: groups must be a positive int, got %r" % (what, groups))
    if nd == 3:
        n, c, h, w = x.sizes[0], x.sizes[1], 1, x.sizes[2]
        kh, kw = 1, kernel_size[0]
        sh, sw, ph, pw, dh, dw = 1, stride[0], 0, padding[0], 1, dilation[0]
    else:
        n, c, h, w = x.sizes
        kh, kw = kernel_size
        sh, sw = stride
        ph, pw = padding
        dh, dw = dilation
    oc = weight.sizes[0] if weight.sizes else 0
    if kh < 1 or kw < 1 or c % groups or oc % groups:
        checks.fail(
            "%s: input %s, weight %s, kernel %s and groups %d do not fit"
            % (what, checks.shape_str(x), checks.shape_str(weight), kernel_size, groups)
        )
    cpg = c // groups
    check_packed(weight, oc, cpg * kh * kw, what)
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if oh < 1 or ow < 1:
        checks.fail("%s: kernel %s is larger than the padded input %s" % (what, kernel_size, checks.shape_str(x)))
    checks.out_shape(out, (n, oc, ow) if nd == 3 else (n, oc, oh, ow), what)
    geom = (n, groups, oc // groups, cpg, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow)
    return make(x, weight, channels, geom, x_zp, out_zp, out_min, out_max, out, what)


def make(x, weight, channels, geom, x_zp, out_zp, out_min, out_max, out, what):
    """(step, ctx) of a checked geometry (linear's too)."""
    oc = weight.sizes[0]
    q_requant.channel_table(channels, oc, what)
    zx = zero_point(x_zp, what + " x_zero_point")
    zo = zero_point(out_zp, what + " out_zero_point")
    lo = zero_point(out_min, what + " out_min")
    hi = zero_point(out_max, what + " out_max")
    if lo > hi:
        checks.fail("%s: out_min %d > out_max %d" % (what, lo, hi))
    if out.numel == 0:
        return None
    if q_requant.use_viper:
        from portable_kernels.native import q_conv_viper

        return q_conv_viper.prepare(x, weight, channels, geom, zx, zo, lo, hi, out)
    kp = weight.sizes[1]
    col = [0] * kp  # positions >= K stay 0
    return _conv_ref, (x.data, weight.data, channels.data, out.data, col) + geom + (zx, zo, lo, hi, kp)


def _conv_ref(ctx):
    xd, wd, cd, od, col, n, groups, opg, cpg, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, zx, zo, lo, hi, kp = ctx
    hw = h * w
    oc_n = groups * opg
    pad = zx + 128
    pairs = opg & ~1
    for b in range(n):
        for g in range(groups):
            xb = (b * groups + g) * cpg * hw
            gw = g * opg * kp
            for oy in range(oh):
                for ox in range(ow):
                    k = 0
                    sx = 0
                    for c in range(cpg):
                        cb = xb + c * hw
                        for ky in range(kh):
                            iy = oy * sh - ph + ky * dh
                            rb = cb + iy * w
                            inside = 0 <= iy < h
                            for kx in range(kw):
                                ix = ox * sw - pw + kx * dw
                                v = xd[rb + ix] + 128 if inside and 0 <= ix < w else pad
                                col[k] = v
                                sx += v
                                k += 1
                    oc = g * opg
                    for j in range(opg):
                        # channel j's bytes: 4 at a time, pairs interleaved (host_tools/quantize/pack.py)
                        if j < pairs:
                            wo = gw + j * kp + (j & 1) * (4 - kp)
                            st = 8
                        else:
                            wo = gw + j * kp
                            st = 4
                        d = 0
                        for k in range(0, kp, 4):
                            d += col[k] * wd[wo] + col[k + 1] * wd[wo + 1] + col[k + 2] * wd[wo + 2] + col[k + 3] * wd[wo + 3]
                            wo += st
                        e = 8 * oc
                        acc = d - (sx << 7) + (cd[e] - _OFF)
                        q = zo + requant(acc, cd[e + 1], cd[e + 2], cd[e + 3])
                        od[((b * oc_n + oc) * oh + oy) * ow + ox] = lo if q < lo else (hi if q > hi else q)
                        oc += 1


noalloc.mark(_conv_ref)

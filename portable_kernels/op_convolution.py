"""aten::convolution.out: 2-D (NCHW) and 1-D (NCL) convolution with stride,
padding, dilation and groups (depthwise included), and transposed
convolution (util/conv_transposed.py). Float only.

How the step is fast in plain bytecode:
- each input plane is copied into a preallocated list with the padding
  already in place (zeros), so the inner loops never test bounds and read
  Python floats (no boxing); the 3x3 and row steps copy it once per pass of
  output channels (as many as keep their accumulators within
  _ACC_ELEMENTS: a stride-2 layer of ResNet-8 copies its input 4-16x less
  often), other steps once per output channel; with one input channel per
  group (depthwise, or a 1-channel image) the plane is copied once for all
  output channels that read it;
- accumulators are a preallocated list of Python floats (the output planes
  of a pass): double precision, no float32 rounding between terms; each
  output sums its terms in the same order whatever the pass size;
- 3x3 kernels (the common case, any stride and dilation) sum all nine taps in
  one expression per output pixel (with stride and dilation 1 along rows the
  window slides: three list reads per pixel, not nine); kernels 2 to 5 taps wide sum each kernel
  row in one expression (util/conv_rows.py); wider ones walk the output plane
  once per tap, weight hoisted;
- where the port has the native emitter these steps run as
  @micropython.native copies (util/conv_native.py, generated from this code);
- a 1x1 kernel with stride 1 and no padding is a matrix product per group
  over tiles of the input (util/conv_pointwise.py); other 1x1 kernels without
  padding read the input directly (no plane copy).
Allocation in the step: boxed floats only (reads of float32 elements and
arithmetic results). The lists live as long as the loaded method.

On ports with 64-bit native words (emitters.WIDE) float32 convolutions,
transposed ones included, with fewer than 2**14 terms per output run in
f32_conv_viper (integer soft-float, no float objects, no allocation;
depthwise ones in f32_conv_dw_viper); the steps above stay as their
fallback for an inf or NaN, and run everywhere else.
"""

from mpy_et import dim_orders, dtypes
from mpy_et.port import const
from mpy_et.tensor import addressable
from portable_kernels.util import any_order, checks, scratch
from portable_kernels.util.conv_rows import conv_rows, fill_plane
from portable_kernels.util.emitters import FPU_DP, HAS_NATIVE, THUMB2, WIDE
from portable_kernels.util.float_loops import release

if WIDE:
    from array import array

    from portable_kernels.native.f32_conv_dw_viper import conv_dw as viper_conv_dw
    from portable_kernels.native.f32_conv_viper import chunk_channels
    from portable_kernels.native.f32_conv_viper import conv as viper_conv

_FLOATS = (dtypes.FLOAT, dtypes.DOUBLE)
_ACC_ELEMENTS = const(2048)
# Thumb-2 boards: terms per output of f32_conv_thumb (its decoded weight row is 2 words a term)
_THUMB_TERMS = const(1024)


def convolution_out(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups, out):
    what = "convolution"
    for t, name in ((x, "input"), (weight, "weight"), (out, "out")):
        checks.is_tensor(t, "%s %s" % (what, name))
        checks.dtype_in(t, _FLOATS, "%s %s" % (what, name))
    checks.same_dtype(x, weight, out)
    checks.flag(transposed, what + " transposed")
    nd = len(x.sizes)
    if nd not in (3, 4):
        checks.fail("%s: input must be 3-D (N, C, L) or 4-D (N, C, H, W), got %s" % (what, checks.shape_str(x)))
    if len(weight.sizes) != nd:
        checks.fail("%s: weight %s must have as many dims as input %s" % (what, checks.shape_str(weight), checks.shape_str(x)))
    sp = nd - 2
    stride = checks.int_list(stride, sp, what + " stride", 1)
    padding = checks.int_list(padding, sp, what + " padding", 0)
    dilation = checks.int_list(dilation, sp, what + " dilation", 1)
    if not isinstance(groups, int) or groups < 1:
        checks.fail("%s: groups must be a positive int, got %r" % (what, groups))
    other_order = x.dim_order is not None or weight.dim_order is not None or out.dim_order is not None
    if other_order and (transposed or nd != 4):
        checks.fail("%s: tensors in a non-contiguous dim order (channels-last): only 2-D, not transposed" % what)
    if transposed:
        from portable_kernels.util import conv_transposed

        geometry = (x.sizes[0], x.sizes[1], 1 if nd == 3 else x.sizes[2], x.sizes[-1])
        geometry += ((1, stride[0]), (0, padding[0]), (1, dilation[0])) if nd == 3 else (stride, padding, dilation)
        prepared = conv_transposed.prepare(x, weight, bias, geometry, output_padding, groups, out, what)
        if prepared is None:
            return None
        n, c, h, w, (sh, sw), (ph, pw), (dh, dw) = geometry
        kh, kw = (1, weight.sizes[2]) if nd == 3 else (weight.sizes[2], weight.sizes[3])
        oh, ow = (1, out.sizes[2]) if nd == 3 else (out.sizes[2], out.sizes[3])
        ctl = (n, groups, weight.sizes[1], c // groups, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, 0 if bias is None else 1)
        return _viper_step(x, weight, bias, out, ctl, 1, prepared[0], prepared[1])
    if nd == 3:  # 1-D: a 2-D convolution over a height-1 plane
        n, c, h, w = x.sizes[0], x.sizes[1], 1, x.sizes[2]
        oc, cpg, kh, kw = weight.sizes[0], weight.sizes[1], 1, weight.sizes[2]
        sh, sw, ph, pw, dh, dw = 1, stride[0], 0, padding[0], 1, dilation[0]
    else:
        n, c, h, w = x.sizes
        oc, cpg, kh, kw = weight.sizes
        sh, sw = stride
        ph, pw = padding
        dh, dw = dilation
    if c % groups or oc % groups:
        checks.fail("%s: input channels (%d) and output channels (%d) must be divisible by groups (%d)" % (what, c, oc, groups))
    if cpg != c // groups:
        checks.fail(
            "%s: weight %s needs %d input channels per group (input %s, groups %d)"
            % (what, checks.shape_str(weight), c // groups, checks.shape_str(x), groups)
        )
    if bias is not None:
        checks.is_tensor(bias, what + " bias")
        checks.same_dtype(x, bias)
        if tuple(bias.sizes) != (oc,):
            checks.fail("%s: bias must be [%d], got %s" % (what, oc, checks.shape_str(bias)))
    hp, wp = h + 2 * ph, w + 2 * pw
    oh = (hp - dh * (kh - 1) - 1) // sh + 1
    ow = (wp - dw * (kw - 1) - 1) // sw + 1
    if oh < 1 or ow < 1 or kh < 1 or kw < 1:
        checks.fail(
            "%s: kernel %s (dilation %s) is larger than the padded input %s"
            % (what, checks.shape_str(weight), list(dilation), checks.shape_str(x))
        )
    want = (n, oc, ow) if nd == 3 else (n, oc, oh, ow)
    checks.out_shape(out, want, what)
    if out.numel == 0:
        return None
    if other_order:  # the fast paths below read the contiguous order
        return any_order.conv2d(x, weight, bias, out, stride, padding, dilation, groups)
    ctl = (n, groups, oc // groups, cpg, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, 0 if bias is None else 1)
    k = cpg * kh * kw
    if (
        FPU_DP
        and cpg == 1
        and oc == groups > 1
        and kh == kw == 3
        and dh == dw == 1
        and out.dtype == dtypes.FLOAT
        and addressable(x, weight, bias, out)
    ):
        from portable_kernels.native import f32_conv_dw_fpu  # 3x3 depthwise on the Cortex-M7's FPU

        return f32_conv_dw_fpu.prepare(x, weight, bias, out, ctl)
    if THUMB2 and not WIDE and out.dtype == dtypes.FLOAT and k <= _THUMB_TERMS and addressable(x, weight, bias, out):
        from portable_kernels.native import f32_conv_thumb

        return f32_conv_thumb.prepare(x, weight, bias, out, ctl, _bytecode)
    step, ctx = _bytecode(x.data, weight.data, None if bias is None else bias.data, out.data, ctl)
    return _viper_step(x, weight, bias, out, ctl, 0, step, ctx)


def _viper_step(x, weight, bias, out, ctl, transposed, step, ctx):
    """The f32_conv_viper (or f32_conv_dw_viper) step for a float32
    convolution where the port has it (ctl: the first 17 of
    f32_conv_viper.CTL_WORDS), with (step, ctx) as its fallback; (step, ctx)
    itself elsewhere."""
    opg, cpg, kh, kw = ctl[2], ctl[3], ctl[6], ctl[7]
    k = cpg * kh * kw
    if not WIDE or out.dtype != dtypes.FLOAT or k >= 0x4000 or not addressable(x, weight, bias, out):
        return step, ctx
    chunk = chunk_channels(opg, k)
    words = array("i", ctl + (chunk, transposed))
    bwords = words if bias is None else bias.data
    if cpg == 1 and opg == 1 and not transposed:  # depthwise
        wm, we = scratch.words(k, "conv weight mantissas"), scratch.words(k, "conv weight exponents")
        return _viper_dw, (x.data, wm, weight.data, we, out.data, bwords, words, step, ctx)
    head = (scratch.words(k, "conv mantissas"), scratch.words(k, "conv exponents"), x.data, weight.data)
    head += (scratch.words(chunk * k, "conv weight mantissas"), scratch.words(chunk * k, "conv weight exponents"), out.data)
    return _viper, head + (bwords, words, step, ctx)


def _viper_dw(ctx):
    x, wm, wt, we, o, bias, ctl, step, fallback = ctx
    if viper_conv_dw(x, wm, 0, wt, we, o, bias, ctl):  # inf or NaN: the bytecode step keeps torch's results
        step(fallback)


def _viper(ctx):
    xm, xe, x, wt, wm, we, o, bias, ctl, step, fallback = ctx
    if viper_conv(0, 0, 0, xm, xe, x, wt, wm, we, o, bias, ctl):  # inf or NaN: the bytecode step keeps torch's results
        step(fallback)


def _bytecode(x, weight, bdata, out, ctl):
    """(step, ctx) of the bytecode convolution of the data views x, weight,
    bdata (None: no bias) into out (ctl: f32_conv_viper.CTL_WORDS)."""
    _native_steps()
    n, groups, opg, cpg, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, _ = ctl
    oc = groups * opg
    hp, wp = h + 2 * ph, w + 2 * pw
    direct = kh == 1 and kw == 1 and ph == 0 and pw == 0
    if direct and sh == 1 and sw == 1:
        from portable_kernels.util import conv_pointwise

        return conv_pointwise.prepare(x, weight, bdata, out, n, oc, groups, cpg, h * w)
    # geometry in the padded plane: wp wide, the input starts at ph * wp + pw
    geom = (n, groups, oc // groups, cpg, h, w, wp, ph * wp + pw, oh, ow, sh * wp, sw)
    plane = None if direct else scratch.floats(hp * wp, "conv plane")
    og = passes(oc // groups, oh * ow)
    if kh == 3 and kw == 3:
        taps = tuple(i * dh * wp + j * dw for i in range(3) for j in range(3))
        acc = scratch.floats(og * oh * ow, "conv acc")
        return _conv3x3, (x, weight, bdata, out, acc, plane, oc) + geom + (sw == 1 and dw == 1, og) + taps[1:]
    if 2 <= kw <= 5 and not direct:
        acc = scratch.floats(og * oh * ow, "conv acc")
        return conv_rows, (x, weight, bdata, out, acc, plane, oc) + geom + (kh, kw, dh * wp, dw, og)
    acc = scratch.floats(oh * ow, "conv acc")
    taps = tuple(i * dh * wp + j * dw for i in range(kh) for j in range(kw))
    return _conv, (x, weight, bdata, out, acc, plane, oc) + geom + (taps, direct)


def passes(opg, ohw):
    """Output channels per pass of _conv3x3 and conv_rows: as many as keep the accumulator
    planes within _ACC_ELEMENTS sums (at least one), so each copy of an input
    plane serves them all."""
    return max(1, min(opg, _ACC_ELEMENTS // ohw))


def _conv3x3(ctx):
    x, wt, bias, o, acc, pl, oc_n, n, groups, opg, cpg, h, w, wp, p0, oh, ow, rstep, sw, slide, og, t1, t2, t3, t4, t5, t6, t7, t8 = ctx
    hw = h * w
    gstride = cpg * hw
    ohw = oh * ow
    filled = -1  # input offset of the plane in pl
    oi = 0
    for b in range(n):
        for g in range(groups):
            oc = g * opg
            oc_end = oc + opg
            while oc < oc_end:  # a pass: up to og output channels share each plane copy
                cnt = oc_end - oc if oc_end - oc < og else og
                j = 0
                for c in range(oc, oc + cnt):
                    bv = bias[c] if bias is not None else 0.0
                    for _ in range(ohw):
                        acc[j] = bv
                        j += 1
                xi = (b * groups + g) * gstride
                for ic in range(cpg):
                    if xi != filled:  # one input channel per group: reuse the plane
                        fill_plane(x, xi, pl, p0, h, w, wp)
                        filled = xi
                    xi += hw
                    wi = (oc * cpg + ic) * 9
                    j0 = 0
                    for _ in range(cnt):
                        w0 = wt[wi]
                        w1 = wt[wi + 1]
                        w2 = wt[wi + 2]
                        w3 = wt[wi + 3]
                        w4 = wt[wi + 4]
                        w5 = wt[wi + 5]
                        w6 = wt[wi + 6]
                        w7 = wt[wi + 7]
                        w8 = wt[wi + 8]
                        wi += cpg * 9
                        j = j0
                        j0 += ohw
                        r = 0
                        if slide:  # stride and dilation 1 along rows: the window slides, one new read per kernel row
                            for _ in range(oh):
                                u0 = pl[r]
                                u1 = pl[r + 1]
                                v0 = pl[r + t3]
                                v1 = pl[r + t4]
                                y0 = pl[r + t6]
                                y1 = pl[r + t7]
                                a = r + 2
                                for _ in range(ow):
                                    u2 = pl[a]
                                    v2 = pl[a + t3]
                                    y2 = pl[a + t6]
                                    acc[j] += w0 * u0 + w1 * u1 + w2 * u2 + w3 * v0 + w4 * v1 + w5 * v2 + w6 * y0 + w7 * y1 + w8 * y2
                                    u0 = u1
                                    u1 = u2
                                    v0 = v1
                                    v1 = v2
                                    y0 = y1
                                    y1 = y2
                                    j += 1
                                    a += 1
                                r += rstep
                            continue
                        for _ in range(oh):
                            a = r
                            for _ in range(ow):  # counted: range() with a variable step would allocate
                                acc[j] += (
                                    w0 * pl[a]
                                    + w1 * pl[a + t1]
                                    + w2 * pl[a + t2]
                                    + w3 * pl[a + t3]
                                    + w4 * pl[a + t4]
                                    + w5 * pl[a + t5]
                                    + w6 * pl[a + t6]
                                    + w7 * pl[a + t7]
                                    + w8 * pl[a + t8]
                                )
                                j += 1
                                a += sw
                            r += rstep
                for j in range(cnt * ohw):
                    o[oi] = acc[j]
                    oi += 1
                oc += cnt
    release(acc)
    if pl is not None:
        release(pl)


def _conv(ctx):
    x, wt, bias, o, acc, pl, oc_n, n, groups, opg, cpg, h, w, wp, p0, oh, ow, rstep, sw, taps, direct = ctx
    hw = h * w
    gstride = cpg * hw
    ohw = oh * ow
    ntaps = len(taps)
    filled = -1  # input offset of the plane in pl
    oi = 0
    for b in range(n):
        for oc in range(oc_n):
            bv = bias[oc] if bias is not None else 0.0
            for j in range(ohw):
                acc[j] = bv
            xi = (b * groups + oc // opg) * gstride
            wi = oc * cpg * ntaps
            for _ in range(cpg):
                if direct:
                    src = x
                    base = xi
                else:
                    if xi != filled:
                        fill_plane(x, xi, pl, p0, h, w, wp)
                        filled = xi
                    src = pl
                    base = 0
                xi += hw
                for t in range(ntaps):
                    wv = wt[wi]
                    wi += 1
                    j = 0
                    r = base + taps[t]
                    for _ in range(oh):
                        a = r
                        for _ in range(ow):  # counted: range() with a variable step would allocate
                            acc[j] += wv * src[a]
                            j += 1
                            a += sw
                        r += rstep
            for j in range(ohw):
                o[oi] = acc[j]
                oi += 1
    release(acc)
    if pl is not None:
        release(pl)


def _native_steps():
    """Where the port has the native emitter, the bytecode steps become their
    @micropython.native copies (util/conv_native.py, generated from this code
    by host_tools/codegen/native_variants.py), imported with the first
    bytecode step built: on Thumb-2 boards f32_conv_thumb runs the float32
    convolutions and the copies stay out of RAM."""
    global _conv, _conv3x3, conv_rows
    if HAS_NATIVE:
        from portable_kernels.util import conv_native

        _conv, _conv3x3, conv_rows = conv_native._conv, conv_native._conv3x3, conv_native.conv_rows


dim_orders.mark(convolution_out)

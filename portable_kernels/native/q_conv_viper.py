"""Viper steps of the int8 convolution / linear kernels (quantized/op_conv2d_packed.py).

Imported only where the port has a native emitter (q_requant.use_viper).
Bytes are read unsigned: xb = x + 128 (padding as zx + 128) and the packed
weights wb = w + 128 (host_tools/quantize/pack.py, read where they lie), so
a dot product is plain byte loads; with the channel table's
C = bias - (128 + zx) * sum(w),
    acc = C + sum(xb * wb) - 128 * sum(xb)
equals bias + sum((x - zx) * w). Every intermediate fits a 32-bit word
(host_tools/quantize/ref.check_viper_conv); the requantization is
q_requant.requant's, bit for bit.

Regular / pointwise convolution and linear work one output row at a time:
the gather writes the patch of every pixel of the row (kp bytes each, kp =
patch length rounded up to 4, the tail left 0) and its byte sum; a dot
kernel computes every (pixel, output channel) dot of the group into an
int32 row (q_dot_dsp.dots with SMLAD on armv7e-m, or q_dot_dsp.dotsx on the row
expanded once into halfword lanes; a pointwise convolution there goes to
native/q_conv_pw_viper.py; q_dot_thumb.dots in Arm
Thumb assembly on other Arm ports, q_dots_viper.dots elsewhere; all read the
packed channel pairs); the requantization writes the int8 outputs (q_requant_thumb.rows on Arm). The
viper gather and requantization live in native/q_conv_rows_viper.py,
imported only where a step uses them (on Arm, a kernel taller than 30 rows). Depthwise convolution (one input and
one output channel per group) has its own step in native/q_conv_dw_viper.py.
No step allocates; the constants are not copied.
"""

from array import array

import micropython

from mpy_et import noalloc
from mpy_et.port import const
from portable_kernels.util import scratch
from portable_kernels.util.emitters import DSP, HAS_THUMB, THUMB2

# On Arm, the most int32 dots (pixels x output channels) a row pass keeps
# (a 1-D convolution's row is the whole sequence: 128 pixels x 16 channels
# would be 8 KB).
_ACC_WORDS = const(512)
# Steps of fewer multiply-accumulates keep their own control arrays (prepare)
_PRIVATE_MACS = const(16384)


def prepare(x, weight, channels, geom, zx, zo, lo, hi, out):
    """(step, ctx) of a checked convolution (quantized/op_conv2d_packed.make)."""
    n, groups, opg, cpg, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow = geom
    params = channels.buffer  # (C + 2**29, M, s, L, C, -L, s', R) per channel, in place
    wt = weight.buffer
    tail = [zx + 128, zo + 128, lo + 128, hi + 128]
    if cpg == 1 and opg == 1 and kh * kw > 1:
        if HAS_THUMB and kh == 3 and kw == 3 and dh == 1 and dw == 1:
            if THUMB2:  # one assembler step for every plane, where it applies (not importing the others)
                from portable_kernels.native import q_dw_step_thumb

                step = q_dw_step_thumb.prepare(x, weight, channels, geom, tail, out)
                if step is not None:
                    return step
            from portable_kernels.native import q_conv_dw3x3_thumb

            return q_conv_dw3x3_thumb.prepare(x, weight, channels, geom, tail, out)
        from portable_kernels.native import q_conv_dw_viper

        return q_conv_dw_viper.prepare(x, weight, channels, geom, tail, out)
    if not HAS_THUMB and (opg <= 2 or cpg == 1) and kh == 3 and kw == 3 and dh == 1 and dw == 1 and cpg <= 1024:
        from portable_kernels.native import q_conv_direct_viper

        return q_conv_direct_viper.prepare(x, weight, channels, geom, tail, out)
    kp = weight.sizes[1]
    kn = cpg * kh * kw
    # A small step (a recurrent cell's or a classifier's linear) keeps its own control arrays,
    # written once here; a larger one shares them with every other convolution and writes them
    # when it runs (_fill: ~16k instructions on a Cortex-M3, ~350 bytes less kept per step).
    private = n * groups * opg * oh * ow * kn < _PRIVATE_MACS
    rq = None
    if HAS_THUMB:
        if DSP:  # armv7e-m: SMLAD, two pixels by two channels
            from portable_kernels.native.q_dot_dsp import dots
        elif THUMB2:  # armv7-m: MLA (q_dot_thumb's generated copy)
            from portable_kernels.native.q_dot_thumb2 import dots
        else:
            from portable_kernels.native.q_dot_thumb import dots
        from portable_kernels.native.q_requant_thumb import fill_ctl, rows

        global _fill_rq
        rq, _fill_rq = rows, fill_ctl
    else:
        from portable_kernels.native.q_dots_viper import dots
    plane = oh * ow
    if DSP:  # 3 wide: by output pixels and channels where q_conv_mla_dsp takes it
        from portable_kernels.native import q_conv_mla_dsp

        step = q_conv_mla_dsp.prepare(x, out, params, wt, geom, tail, kp, rq, _fill_rq)
        if step is not None:
            return step
    if THUMB2 and _by_pixels(geom, kn, kp):
        from portable_kernels.native import q_conv_mla_thumb

        return q_conv_mla_thumb.prepare(x, out, params, wt, geom, tail, kp, rq, _fill_rq)
    if DSP and kh == 1 and kw == 1 and sh == 1 and sw == 1 and ph == 0 and pw == 0 and kp == cpg <= 512 and opg >= 4 and plane > 1:
        from portable_kernels.native import q_conv_pw_viper

        return q_conv_pw_viper.prepare(x, out, params, wt, geom, tail, kn, kp, rq, _fill)
    gx = None
    if HAS_THUMB:
        from portable_kernels.native import q_gather_thumb

        gx = q_gather_thumb.private(kw, kh) if private else q_gather_thumb.shared(kw, kh)
    # output channels per dots / requantization pass on Arm (even, or all of them):
    # the int32 dots of a row are at most _ACC_WORDS words, not ow * opg
    cn = opg
    if rq is not None and ow * opg > _ACC_WORDS:
        cn = max(2, (_ACC_WORDS // ow) & ~1)
    col = scratch.rows("col", ow * kp)
    # the row's bytes expanded once, dotted by dotsx (at most 4 KB of lanes: RAM)
    if DSP and gx is not None and cn >= 4 and ow * kp <= 2048:
        from portable_kernels.native import q_dot_dsp

        dots = q_dot_dsp.dotsx
        gx = q_dot_dsp.expanding(gx, col, private)
        col = scratch.rows("xcol", (ow * kp) >> 1)  # 2 * ow * kp bytes: dotsx's operand
    vf = None  # the viper gather and requantization, imported only where a step uses them
    if gx is None or rq is None:
        from portable_kernels.native import q_conv_rows_viper

        vf = q_conv_rows_viper.shared()
    # g[24]: requantize with the Thumb rows, g[25]: gather with q_gather_thumb, g[26]: cn,
    # g[27]: the control arrays are shared (written by every run)
    g = array(
        "i",
        [x.offset, out.offset]
        + list(geom)
        + tail
        + [kn, kp, 1 if rq is not None else 0, 1 if gx is not None else 0, cn, 0 if private else 1],
    )
    if private:
        ctl = array("i", bytearray(4 * 13))
        rqa = array("i", bytearray(4 * 16)) if rq is not None else None
        _fill(g, ctl, rqa, gx)
    else:
        ctl = scratch.rows("qc ctl", 13)
        rqa = scratch.rows("qc rq", 16) if rq is not None else None
    ctx = (
        x.buf,
        out.buf,
        params,
        g,
        col,
        scratch.rows("sx", ow),
        wt,
        scratch.rows("acc", ow * cn),
        ctl,
        dots,
        rq,
        rqa,
        gx,
        vf,
    )
    return _step, ctx


def _by_pixels(geom, kn, kp):
    """Whether native/q_conv_mla_thumb.py takes a convolution (its geometry; load time):
    wherever it can, except with the DSP extension when there are more than 8 output and
    more than 4 input channels and the kernel is 3 wide on small planes or has stride 2
    across: there the row gather, paid once for all output channels, costs less than those
    pixel loops (resnet8's 32 -> 32 3x3 on 16 x 16: 1.9 instructions per multiply-accumulate
    by the gather, 2.1 by pixels; 16 -> 16 on 32 x 32: 2.3 against 1.9; 5-wide, stride 1,
    lenet5's 6 -> 16: 2.55 against 2.24, imu_cnn1d's 16 -> 32: 2.29 against 1.75), but where
    q_conv_mla_dsp.rows_oc takes it (by pixels and channels: conv_autoencoder's 8 -> 16 stride
    2 on 7 x 7, 3.72 by the gather, 2.05 there: prepare asks it first)."""
    n, groups, opg, cpg, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow = geom
    if DSP and opg > 8 and cpg > 4 and not (sw == 1 and (kw == 5 or (ow >= 16 and oh * ow >= 512))):
        return False
    return groups == 1 and (kw, sw) in ((3, 1), (3, 2), (5, 1)) and dw == 1 and pw <= 4 and kh <= 30 and kn + 4 <= ow * kp


_fill_rq = None  # q_requant_thumb.fill_ctl, where a step uses it (set at load)


def _fill(g, k, rq, gx):
    """Writes a step's control words (the dots', the requantization's, the gather's) from its g."""
    ow = g[17]
    kp = g[23]
    opg = g[4]
    k[0] = ow  # the dots': pixels, kp, channels, weight offset, scratch x5, pairs, odd, q_dot_dsp's kp - 4, scratch
    k[1] = kp
    k[2] = opg
    k[9] = opg >> 1
    k[10] = opg & 1
    k[11] = kp - 4 if ow > 1 else -4
    if g[24]:
        _fill_rq(rq, opg, ow, g[16] * ow, g[19] - 128, g[20] - 128, g[21] - 128)
    if g[25]:
        gx[5](gx[0], gx[1], g)


def _step(ctx):
    g = ctx[3]
    if g[27]:
        _fill(g, ctx[8], ctx[11], ctx[12])
    _conv_rows(ctx[0], ctx[1], ctx[2], g, ctx[4], ctx[5], ctx[6], ctx[7], ctx[8], ctx[9], ctx[10], ctx[11], ctx[12], ctx[13])


@micropython.viper
def _conv_rows(xobj, oobj, pobj, gobj, colobj, sxobj, wtobj, accobj, ctlobj, dots, rq, rqobj, gx, vf):
    # objects, not pointers, are passed on: a pointer argument would be boxed as an int
    ctl = ptr32(ctlobj)  # noqa: F821
    g = ptr32(gobj)  # noqa: F821
    thumb_rq = g[24]
    thumb_gather = g[25]
    gth = gx  # object locals: q_gather_thumb.gather, q_conv_rows_viper's gather and requant_row where used
    if thumb_gather:
        gth = gx[4]
    vgather = vf
    vrequant = vf
    if not thumb_gather or not thumb_rq:
        vgather = vf[0]
        vrequant = vf[1]
    ow = g[17]
    n = g[2]
    groups = g[3]
    opg = g[4]
    kp = g[23]
    oh = g[16]
    cn = g[26]
    plane = oh * ow
    table = int(ptr8(pobj))  # noqa: F821 (the channel table: 32 bytes per channel)
    for b in range(n):
        for gi in range(groups):
            ctl[3] = gi * opg * kp
            for oy in range(oh):
                if thumb_gather:
                    gth(xobj, gobj, colobj, sxobj, b * groups + gi, oy, gx)
                else:
                    vgather(xobj, colobj, 0, gobj, sxobj, colobj, b * groups + gi, oy)
                if not thumb_rq:
                    dots(colobj, wtobj, 0, accobj, ctlobj)
                    vrequant(0, 0, 0, pobj, gobj, accobj, sxobj, oobj, b, gi, oy)
                    continue
                # Arm: the row's output channels cn at a time (pairs stay whole: cn is even or all)
                rc = ptr32(rqobj)  # noqa: F821
                j = 0
                while j < opg:
                    c = cn
                    if c > opg - j:
                        c = opg - j
                    oc = gi * opg + j
                    ctl[2] = c
                    ctl[3] = oc * kp
                    ctl[9] = c >> 1
                    ctl[10] = c & 1
                    dots(colobj, wtobj, accobj, ctlobj)
                    rc[0] = 4 * c
                    rc[4] = c
                    rc[5] = table + oc * 32
                    rc[3] = g[1] + (b * groups * opg + oc) * plane + oy * ow
                    rq(accobj, sxobj, oobj, rqobj)
                    j += c


noalloc.mark(_step)

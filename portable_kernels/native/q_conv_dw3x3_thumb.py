"""The int8 3x3 depthwise step on Arm (dilation 1; used by
native/q_conv_viper.prepare where the port has asm_thumb and the Thumb-2
assembler step, native/q_dw_step_thumb.py, does not apply): a viper loop
over the channel planes driving the Thumb kernels of native/q_dw_thumb.py
and native/q_requant_thumb.py. Does not allocate.
"""

from array import array

import micropython

from mpy_et import noalloc
from mpy_et.port import const
from portable_kernels.util import scratch

# Pixels of the output rows computed per call (a band): the int32 dots and the
# zero patch sums the requantization reads are two rows of this many words,
# not of a whole plane (mobilenet_v1_025's 48 x 48 planes: 2 x 9 KB).
_BAND_PIXELS = const(512)


def prepare(x, weight, channels, geom, tail, out):
    """3x3, dilation 1, on Arm: each channel plane is copied unsigned into a
    padded buffer, q_dw_thumb.dw3x3 computes the window dot products of a
    band of output rows with
    the channel's 9 signed taps (taken from the packed row into a 9-word
    scratch per channel), q_requant_thumb.rows requantizes. Same integers as
    the other steps: sum(xb * w) = sum(xb * wb) - 128 * sum(xb) (the table's
    constant is kept)."""
    from portable_kernels.native.q_dw_thumb import dw3x3, pad_plane
    from portable_kernels.util.emitters import DSP

    if DSP:  # SMLAD on packed tap pairs (Cortex-M4 / M7)
        from portable_kernels.native.q_dw_dsp import dw3x3
    from portable_kernels.native.q_requant_thumb import fill_ctl, rows

    n, ch, _, _, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow = geom
    wp, hp = w + 2 * pw, h + 2 * ph
    band = max(1, min(oh, _BAND_PIXELS // ow))  # output rows per band
    g = array("i", [x.offset, out.offset] + list(geom) + tail + [wp, hp, weight.sizes[1], band, 1 if DSP else 0])
    # The step keeps g (and its tensors); the control words derived from it are written into
    # arrays shared by every convolution when it runs (_step_thumb): ~240 bytes less per
    # convolution on a board. The shared arrays and kernels: _shared.
    global _shared
    _shared = (
        scratch.rows("taps", 15),
        scratch.rows("col", wp * hp),
        scratch.rows("acc", band * ow),
        scratch.rows("qd ctl", 10),
        scratch.rows("qc rq", 16),  # requantized by rows() as one channel of a band's pixels whose patch sums are 0
        scratch.rows("zero", band * ow),  # never written
        scratch.rows("qd pad", 8),
        dw3x3,
        rows,
        pad_plane,
        fill_ctl,
    )
    return _step_thumb, (x.buf, weight.buffer, out.buf, g, channels.buffer)


# (taps, col, acc, dw3x3's ctl, rows' ctl, zero, pad_plane's ctl, dw3x3, rows, pad_plane,
# fill_ctl): one for every step (the arrays grow in place as steps load)
_shared = None


def _step_thumb(ctx):
    s = _shared
    g = ctx[3]
    ow = g[17]
    wp = g[22]
    band = g[25]
    k = s[3]  # dw3x3's: padded width, stride x, pixels per row, rows, stride y * padded width, tap offset 0
    k[0] = wp
    k[1] = g[11]
    k[2] = ow
    k[3] = band
    k[4] = g[10] * wp
    k[5] = 0
    s[10](s[4], 1, band * ow, band * ow, g[19] - 128, g[20] - 128, g[21] - 128)
    p = s[6]  # pad_plane's: x offset (per plane), w, h, pw, ph * wp, bottom padding, pad byte, scratch
    h = g[6]
    ph = g[12]
    p[1] = g[7]
    p[2] = h
    p[3] = g[13]
    p[4] = ph * wp
    p[5] = (g[23] - h - ph) * wp
    p[6] = g[18]
    _dw_planes(ctx[0], ctx[1], ctx[2], s[0], g, s[1], s[2], k, s[7], s[8], s[4], s[5], s[9], p, ctx[4])


@micropython.viper
def _dw_planes(xobj, wobj, oobj, tapobj, gobj, padobj, dobj, ctlobj, kern, rq, rqobj, zobj, padfn, pctlobj, pobj):
    g = ptr32(gobj)  # noqa: F821
    pctl = ptr32(pctlobj)  # noqa: F821
    wt = ptr8(wobj)  # noqa: F821
    taps = ptr32(tapobj)  # noqa: F821
    n = g[2]
    ch = g[3]
    kp = g[24]
    band = g[25]
    oh = g[16]
    ow = g[17]
    sy = g[10] * g[22]  # stride y * padded width
    ctl = ptr32(ctlobj)  # noqa: F821
    npx = oh * ow
    hw = g[6] * g[7]
    for plane in range(n * ch):
        c = plane % ch
        pctl[0] = g[0] + plane * hw
        padfn(xobj, padobj, pctlobj)
        for t in range(9):  # the channel's signed taps (ctl[5] = 0: dw3x3 reads them from the start)
            taps[t] = int(wt[c * kp + t]) - 128
        if g[26]:  # and as halfword pairs per window row for q_dw_dsp: (w0, w2), (w1, 0)
            for t in range(3):
                taps[9 + 2 * t] = (taps[3 * t] & 0xFFFF) | (taps[3 * t + 2] << 16)
                taps[10 + 2 * t] = taps[3 * t + 1] & 0xFFFF
        rc = ptr32(rqobj)  # noqa: F821
        r = 0
        while r < oh:  # a band of output rows at a time: the dots of a band, then its requantization
            rows = band
            if rows > oh - r:
                rows = oh - r
            ctl[3] = rows
            ctl[9] = r * sy
            kern(padobj, tapobj, dobj, ctlobj)
            rc[1] = rows * ow
            rc[3] = g[1] + plane * npx + r * ow
            rc[5] = int(ptr8(pobj)) + c * 32  # noqa: F821 (the channel's table entry)
            rq(dobj, zobj, oobj, rqobj)
            r += band


noalloc.mark(_step_thumb)

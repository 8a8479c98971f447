"""Viper step of the int8 3x3 convolution (dilation 1) with one or two
output channels per group (a decoder's last layer) or one input channel (a
first layer), used by q_conv_viper.prepare on ports without asm_thumb.

There the row gather would cost more than the dots (measured on unix x64:
8->1 28x28 4.3 -> 1.5 ns/MAC, 1->8 stride 2 3.2 -> 2.5), so the
windows are read in place: every input channel plane is copied unsigned
into a padded buffer once, then for each output channel and input channel
every window is dotted through three row pointers with constant offsets and
signed taps and added into an int32 plane, biased by 2**30 (|partial sums|
< 2**29 + 293760 * cpg < 2**30 for cpg <= 1024), (sum(xb * w): the per-channel
constant of the channel table absorbs the 128 and the padding, as in
q_conv_dw_viper). Taps are read from the packed weights where they lie
(host_tools/quantize/pack.py). The requantization is q_requant.requant's, bit for bit.
Does not allocate.
"""

from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.util import scratch


def prepare(x, weight, channels, geom, tail, out):
    """(step, ctx); weight = packed uint8 [O, kp] (host_tools/quantize/pack.py), read in place."""
    n, groups, opg, cpg, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow = geom
    wp, hp = w + 2 * pw, h + 2 * ph
    g = array("i", [x.offset, out.offset] + list(geom) + tail + [wp, hp, 1 << 30, weight.sizes[1]])
    ctx = (x.buf, weight.buffer, out.buf, channels.buffer, g, scratch.rows("col", cpg * wp * hp), scratch.rows("acc", oh * ow))
    return _step, ctx


def _step(ctx):
    _conv(0, 0, 0, ctx[0], ctx[1], ctx[2], ctx[3], ctx[4], ctx[5], ctx[6])


@micropython.viper
def _pad_planes(x: ptr8, pb: ptr8, g: ptr32, first: int):  # noqa: F821
    """The cpg planes from plane `first` on, unsigned, each in a padded wp x hp block."""
    cpg = g[5]
    h = g[6]
    w = g[7]
    ph = g[12]
    pw = g[13]
    pad = g[18]
    wp = g[22]
    hp = g[23]
    i = 0
    src = g[0] + first * h * w
    for _c in range(cpg):
        end = i + ph * wp
        while i < end:
            pb[i] = pad
            i += 1
        for _y in range(h):
            for _x in range(pw):
                pb[i] = pad
                i += 1
            e = src + w
            while src < e:
                pb[i] = x[src] ^ 0x80
                i += 1
                src += 1
            for _x in range(pw):
                pb[i] = pad
                i += 1
        end = i + (hp - h - ph) * wp
        while i < end:
            pb[i] = pad
            i += 1


@micropython.viper
def _conv(a: ptr8, b: ptr8, c: ptr8, xobj, wobj, oobj, pobj, gobj, padobj, accobj):  # noqa: F821
    # a, b, c (the three window rows) are the first locals: the ones x64 viper keeps in registers
    wt = ptr8(wobj)  # noqa: F821
    o = ptr8(oobj)  # noqa: F821
    p = ptr32(pobj)  # noqa: F821
    g = ptr32(gobj)  # noqa: F821
    acc = ptr32(accobj)  # noqa: F821
    n = g[2]
    groups = g[3]
    opg = g[4]
    cpg = g[5]
    sh = g[10]
    sw = g[11]
    oh = g[16]
    ow = g[17]
    zo = g[19] - 128
    lo = g[20] - 128
    hi = g[21] - 128
    wp = g[22]
    hp = g[23]
    npx = oh * ow
    kp = g[25]
    bias = g[24]  # 2**30 (not a literal: not a small int on 32-bit); partial sums are stored biased, non-negative
    pbase = int(ptr8(padobj))  # noqa: F821
    oi = g[1]
    for bg in range(n * groups):
        _pad_planes(xobj, padobj, gobj, bg * cpg)
        for k in range(opg):
            oc = (bg % groups) * opg + k
            pi = oc * 8
            base = int(p[pi]) - 0x20000000 + bias
            for j in range(npx):
                acc[j] = base
            # channel k's packed bytes (host_tools/quantize/pack.py): patch position
            # t at start + (t >> 2) * step + (t & 3), pairs interleaved
            start = (bg % groups) * opg * kp + k * kp
            step = 4
            if k < (opg & ~1):
                start += (k & 1) * (4 - kp)
                step = 8
            for ci in range(cpg):
                t = ci * 9
                w0 = int(wt[start + (t >> 2) * step + (t & 3)]) - 128
                t += 1
                w1 = int(wt[start + (t >> 2) * step + (t & 3)]) - 128
                t += 1
                w2 = int(wt[start + (t >> 2) * step + (t & 3)]) - 128
                t += 1
                w3 = int(wt[start + (t >> 2) * step + (t & 3)]) - 128
                t += 1
                w4 = int(wt[start + (t >> 2) * step + (t & 3)]) - 128
                t += 1
                w5 = int(wt[start + (t >> 2) * step + (t & 3)]) - 128
                t += 1
                w6 = int(wt[start + (t >> 2) * step + (t & 3)]) - 128
                t += 1
                w7 = int(wt[start + (t >> 2) * step + (t & 3)]) - 128
                t += 1
                w8 = int(wt[start + (t >> 2) * step + (t & 3)]) - 128
                row = pbase + ci * wp * hp
                j = 0
                for _oy in range(oh):
                    a = ptr8(row)  # noqa: F821
                    b = ptr8(row + wp)  # noqa: F821
                    c = ptr8(row + wp + wp)  # noqa: F821
                    for _ox in range(ow):
                        acc[j] = (
                            int(acc[j])
                            + int(a[0]) * w0
                            + int(a[1]) * w1
                            + int(a[2]) * w2
                            + int(b[0]) * w3
                            + int(b[1]) * w4
                            + int(b[2]) * w5
                            + int(c[0]) * w6
                            + int(c[1]) * w7
                            + int(c[2]) * w8
                        )
                        j += 1
                        a = ptr8(int(a) + sw)  # noqa: F821
                        b = ptr8(int(b) + sw)  # noqa: F821
                        c = ptr8(int(c) + sw)  # noqa: F821
                    row += sh * wp
            m = int(p[pi + 1])
            s = int(p[pi + 2])
            lim = int(p[pi + 3])
            for j in range(npx):
                v = int(acc[j]) - bias
                # block requant_int8(acc=v, m=m, out=o[oi]): generated by host_tools/codegen/blocks.py
                if v > lim:
                    v = lim
                elif v < 0 - lim:
                    v = 0 - lim
                if s < 22:
                    r = (v * m + (1 << (s - 1))) >> s
                else:
                    r = ((v >> 15) * m + (((v & 0x7FFF) * m) >> 15) + (1 << (s - 16))) >> (s - 15)
                q = zo + r
                if q < lo:
                    q = lo
                elif q > hi:
                    q = hi
                o[oi] = q & 0xFF
                # end block requant_int8
                oi += 1


noalloc.mark(_step)

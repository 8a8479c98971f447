"""Viper dot kernel of the int8 convolution / linear rows (native/q_conv_viper.py)
on ports without asm_thumb. It reads the packed weights where they lie
(host_tools/quantize/pack.py: w + 128, channel pairs interleaved 4 bytes at
a time, an odd last channel in a row of its own), as q_dot_thumb.dots does.
Imported only where the port has a native emitter. Does not allocate.
"""

import micropython


@micropython.viper
def dots(c: ptr8, w: ptr8, k: int, acsobj, ctlobj):  # noqa: F821
    """acs[px * channels + j] = dot(patch px, channel j), ctl = int32
    [pixels, kp, channels, byte offset of the group's weights, ...]: per
    pixel, two channel pairs (4 channels) per pass, each patch byte loaded
    once for four products, then a last pair, then the odd channel. The
    three hot values (patch pointer, weight pointer, index) are the first
    three locals: the ones x64 viper keeps in registers."""
    acs = ptr32(acsobj)  # noqa: F821
    ctl = ptr32(ctlobj)  # noqa: F821
    npx = ctl[0]
    kp = ctl[1]
    opg = ctl[2]
    cbase = int(c)
    wbase = int(w) + ctl[3]
    kp2 = kp + kp  # the next pair's weights
    j = 0
    for px in range(npx):
        c = ptr8(cbase + px * kp)  # noqa: F821
        wp = wbase
        oc = 0
        while oc + 3 < opg:
            w = ptr8(wp)  # noqa: F821
            d0 = 0
            d1 = 0
            d2 = 0
            d3 = 0
            k = 0
            while k < kp:
                a0 = int(c[k])
                a1 = int(c[k + 1])
                a2 = int(c[k + 2])
                a3 = int(c[k + 3])
                d0 += a0 * int(w[0]) + a1 * int(w[1]) + a2 * int(w[2]) + a3 * int(w[3])
                d1 += a0 * int(w[4]) + a1 * int(w[5]) + a2 * int(w[6]) + a3 * int(w[7])
                d2 += a0 * int(w[kp2]) + a1 * int(w[kp2 + 1]) + a2 * int(w[kp2 + 2]) + a3 * int(w[kp2 + 3])
                d3 += a0 * int(w[kp2 + 4]) + a1 * int(w[kp2 + 5]) + a2 * int(w[kp2 + 6]) + a3 * int(w[kp2 + 7])
                w = ptr8(int(w) + 8)  # noqa: F821
                k += 4
            acs[j] = d0
            acs[j + 1] = d1
            acs[j + 2] = d2
            acs[j + 3] = d3
            j += 4
            oc += 4
            wp += kp2 + kp2
        if oc + 1 < opg:
            w = ptr8(wp)  # noqa: F821
            d0 = 0
            d1 = 0
            k = 0
            while k < kp:
                a0 = int(c[k])
                a1 = int(c[k + 1])
                a2 = int(c[k + 2])
                a3 = int(c[k + 3])
                d0 += a0 * int(w[0]) + a1 * int(w[1]) + a2 * int(w[2]) + a3 * int(w[3])
                d1 += a0 * int(w[4]) + a1 * int(w[5]) + a2 * int(w[6]) + a3 * int(w[7])
                w = ptr8(int(w) + 8)  # noqa: F821
                k += 4
            acs[j] = d0
            acs[j + 1] = d1
            j += 2
            oc += 2
            wp += kp2
        if oc < opg:  # the odd channel: its own row
            w = ptr8(wp)  # noqa: F821
            d0 = 0
            k = 0
            while k < kp:
                d0 += int(c[k]) * int(w[k]) + int(c[k + 1]) * int(w[k + 1]) + int(c[k + 2]) * int(w[k + 2]) + int(c[k + 3]) * int(w[k + 3])
                k += 4
            acs[j] = d0
            j += 1

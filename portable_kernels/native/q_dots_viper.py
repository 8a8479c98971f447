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
    [pixels, kp, channels, byte offset of the group's weights, ...]: a pair
    of channels for two pixels per pass (each byte loaded once for two
    products), then the odd pixel, then the odd channel. The three hot
    values (patch pointer, weight pointer, index) are the first three
    locals: the ones x64 viper keeps in registers."""
    acs = ptr32(acsobj)  # noqa: F821
    ctl = ptr32(ctlobj)  # noqa: F821
    npx = ctl[0]
    kp = ctl[1]
    opg = ctl[2]
    cbase = int(c)
    wbase = int(w) + ctl[3]
    pairs = opg >> 1
    px = 0
    while px < npx:
        two = px + 1 < npx
        cp = cbase + px * kp
        wp = wbase
        j = px * opg
        for _p in range(pairs):
            c = ptr8(cp)  # noqa: F821
            w = ptr8(wp)  # noqa: F821
            d0 = 0
            d1 = 0
            e0 = 0
            e1 = 0
            k = 0
            if two:
                while k < kp:
                    w0 = int(w[0])
                    w1 = int(w[1])
                    w2 = int(w[2])
                    w3 = int(w[3])
                    v0 = int(w[4])
                    v1 = int(w[5])
                    v2 = int(w[6])
                    v3 = int(w[7])
                    a0 = int(c[k])
                    a1 = int(c[k + 1])
                    a2 = int(c[k + 2])
                    a3 = int(c[k + 3])
                    d0 += a0 * w0 + a1 * w1 + a2 * w2 + a3 * w3
                    d1 += a0 * v0 + a1 * v1 + a2 * v2 + a3 * v3
                    a0 = int(c[k + kp])
                    a1 = int(c[k + kp + 1])
                    a2 = int(c[k + kp + 2])
                    a3 = int(c[k + kp + 3])
                    e0 += a0 * w0 + a1 * w1 + a2 * w2 + a3 * w3
                    e1 += a0 * v0 + a1 * v1 + a2 * v2 + a3 * v3
                    w = ptr8(int(w) + 8)  # noqa: F821
                    k += 4
                acs[j + opg] = e0
                acs[j + opg + 1] = e1
            else:
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
            wp += kp + kp
        if opg & 1:  # the odd channel: its own row
            c = ptr8(cp)  # noqa: F821
            w = ptr8(wp)  # noqa: F821
            d0 = 0
            e0 = 0
            k = 0
            while k < kp:
                w0 = int(w[k])
                w1 = int(w[k + 1])
                w2 = int(w[k + 2])
                w3 = int(w[k + 3])
                d0 += int(c[k]) * w0 + int(c[k + 1]) * w1 + int(c[k + 2]) * w2 + int(c[k + 3]) * w3
                if two:
                    e0 += int(c[k + kp]) * w0 + int(c[k + kp + 1]) * w1 + int(c[k + kp + 2]) * w2 + int(c[k + kp + 3]) * w3
                k += 4
            acs[j] = d0
            if two:
                acs[j + opg] = e0
        px += 1
        if two:
            px += 1

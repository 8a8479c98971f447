"""Viper dot kernel of the int8 convolution / linear rows (native/q_conv_viper.py)
on ports without asm_thumb, and the interleaved weight layout it (and
q_dot_thumb.dots, in channel pairs) reads. Imported only where the port has
a native emitter. Does not allocate.
"""

import micropython


def interleave(wd, wb, groups, opg, kn, kp, blocks=(8, 4, 1)):
    """Unsigned weights for dots (q_dot_thumb.dots: blocks (2, 1)): per
    group, as many blocks of the first size as fit, then of the next sizes;
    a block of b channels stores, for every 4 patch positions, b runs of 4
    bytes (one per channel), so the kernel walks it with constant offsets.
    Patch positions >= kn stay 0."""
    pos = 0
    for gi in range(groups):
        oc = gi * opg
        end = oc + opg
        while oc < end:
            for b in blocks:
                if oc + b <= end:
                    break
            for k in range(0, kp, 4):
                for q in range(b):
                    row = (oc + q) * kn
                    for i in range(k, k + 4):
                        if i < kn:
                            wb[pos] = wd[row + i] + 128
                        pos += 1
            oc += b


@micropython.viper
def dots(c: ptr8, w: ptr8, k: int, acsobj, ctlobj):  # noqa: F821
    """acs[px * channels + j] = dot(patch px, channel j) over the weights of
    interleave: 8 (then 4, then 1) channels per pass over a patch, each patch
    byte loaded once for all of them. The three hot values (patch pointer,
    weight pointer, index) are the first three locals: the ones x64 viper
    keeps in registers; both pointers are rebased rather than indexed."""
    acs = ptr32(acsobj)  # noqa: F821
    ctl = ptr32(ctlobj)  # noqa: F821
    npx = ctl[0]
    kp = ctl[1]
    opg = ctl[2]
    cbase = int(c)
    wbase = int(w) + ctl[3]
    j = 0
    for px in range(npx):
        c = ptr8(cbase + px * kp)  # noqa: F821
        w = ptr8(wbase)  # noqa: F821
        oc = 0
        while oc + 7 < opg:
            d0 = 0
            d1 = 0
            d2 = 0
            d3 = 0
            d4 = 0
            d5 = 0
            d6 = 0
            d7 = 0
            k = 0
            while k < kp:
                c0 = int(c[k])
                c1 = int(c[k + 1])
                c2 = int(c[k + 2])
                c3 = int(c[k + 3])
                d0 += c0 * int(w[0]) + c1 * int(w[1]) + c2 * int(w[2]) + c3 * int(w[3])
                d1 += c0 * int(w[4]) + c1 * int(w[5]) + c2 * int(w[6]) + c3 * int(w[7])
                d2 += c0 * int(w[8]) + c1 * int(w[9]) + c2 * int(w[10]) + c3 * int(w[11])
                d3 += c0 * int(w[12]) + c1 * int(w[13]) + c2 * int(w[14]) + c3 * int(w[15])
                d4 += c0 * int(w[16]) + c1 * int(w[17]) + c2 * int(w[18]) + c3 * int(w[19])
                d5 += c0 * int(w[20]) + c1 * int(w[21]) + c2 * int(w[22]) + c3 * int(w[23])
                d6 += c0 * int(w[24]) + c1 * int(w[25]) + c2 * int(w[26]) + c3 * int(w[27])
                d7 += c0 * int(w[28]) + c1 * int(w[29]) + c2 * int(w[30]) + c3 * int(w[31])
                w = ptr8(int(w) + 32)  # noqa: F821
                k += 4
            acs[j] = d0
            acs[j + 1] = d1
            acs[j + 2] = d2
            acs[j + 3] = d3
            acs[j + 4] = d4
            acs[j + 5] = d5
            acs[j + 6] = d6
            acs[j + 7] = d7
            j += 8
            oc += 8
        if oc + 3 < opg:
            d0 = 0
            d1 = 0
            d2 = 0
            d3 = 0
            k = 0
            while k < kp:
                c0 = int(c[k])
                c1 = int(c[k + 1])
                c2 = int(c[k + 2])
                c3 = int(c[k + 3])
                d0 += c0 * int(w[0]) + c1 * int(w[1]) + c2 * int(w[2]) + c3 * int(w[3])
                d1 += c0 * int(w[4]) + c1 * int(w[5]) + c2 * int(w[6]) + c3 * int(w[7])
                d2 += c0 * int(w[8]) + c1 * int(w[9]) + c2 * int(w[10]) + c3 * int(w[11])
                d3 += c0 * int(w[12]) + c1 * int(w[13]) + c2 * int(w[14]) + c3 * int(w[15])
                w = ptr8(int(w) + 16)  # noqa: F821
                k += 4
            acs[j] = d0
            acs[j + 1] = d1
            acs[j + 2] = d2
            acs[j + 3] = d3
            j += 4
            oc += 4
        while oc < opg:
            d0 = 0
            k = 0
            while k < kp:
                d0 += int(c[k]) * int(w[0]) + int(c[k + 1]) * int(w[1]) + int(c[k + 2]) * int(w[2]) + int(c[k + 3]) * int(w[3])
                w = ptr8(int(w) + 4)  # noqa: F821
                k += 4
            acs[j] = d0
            j += 1
            oc += 1

"""viper fast path of the cortex_m:: int8 convolutions (conv2d, depthwise,
linear as a 1x1 conv) for channels-last activations: plain int8 weights read
in place (OHWI / IHWO, as ExecuTorch's Cortex-M flow writes them), CMSIS-NN
requantization in 15-bit pieces (portable_kernels/cortex_m/cmsis.py: every
intermediate below 2**30, so the same code is exact with 32-bit machine
words on the boards and 64-bit ones on unix). Imported by
portable_kernels/cortex_m/conv.py only where the port has viper.

conv(x, w, bias, out, rq, g, dots, ctl, acc, requant, rctl): g = int32 geometry (see
GEOMETRY), rq = int32 [co, 6] (cortex_m/cmsis.py: M >> 30, M >> 15 & 0x7fff, M & 0x7fff, left,
right, M), acc = int32 [co] (the current pixel's accumulators). Where g says
(use_dots) (Arm: native/cm_dots_s8_thumb.py; channels contiguous in input and
weights) it computes each tap's dot products for all output channels, with
ctl its int32 control block; else the loops here do. Where g says
(use_requant) `requant` (Arm: cm_dots_s8_thumb.requant, with rctl) requantizes
each pixel's accumulators; else the block here does. Returns 0, or 1 when
an accumulator << left reached 2**30 (the caller then runs its reference
step, which has an exact wide path). Allocates nothing.
"""

import micropython

# indices in g
GEOMETRY = (
    "n c h w xsn xsc xsh xsw co oh ow osn osc osh osw kh kw sh sw ph pw dh dw ig og wso wsy wsx wsc xoff ooff lo hi has_bias use_dots"
    " use_requant"
).split()


@micropython.viper
def conv(xo, wo_, bo, oo, rqo, go, dots, ctlo, acco, requant, rctlo) -> int:
    x = ptr8(xo)  # noqa: F821 (viper types)
    w = ptr8(wo_)  # noqa: F821
    bias = ptr32(bo)  # noqa: F821
    o = ptr8(oo)  # noqa: F821
    rq = ptr32(rqo)  # noqa: F821
    g = ptr32(go)  # noqa: F821
    ctl = ptr32(ctlo)  # noqa: F821
    acc = ptr32(acco)  # noqa: F821
    one = 1
    s31 = one << 31  # int32 loads: (v ^ s31) - s31 sign-extends on 64-bit words, is v on 32-bit ones
    small = one << 30
    n = int(g[0])
    h = int(g[2])
    w_ = int(g[3])
    xsn = int(g[4])
    xsc = int(g[5])
    xsh = int(g[6])
    xsw = int(g[7])
    co = int(g[8])
    oh = int(g[9])
    ow = int(g[10])
    osn = int(g[11])
    osc = int(g[12])
    osh = int(g[13])
    osw = int(g[14])
    kh = int(g[15])
    kw = int(g[16])
    sh = int(g[17])
    sw = int(g[18])
    ph = int(g[19])
    pw = int(g[20])
    dh = int(g[21])
    dw = int(g[22])
    ig = int(g[23])
    og = int(g[24])
    wso = int(g[25])
    wsy = int(g[26])
    wsx = int(g[27])
    wsc = int(g[28])
    xoff = (int(g[29]) ^ s31) - s31
    ooff = (int(g[30]) ^ s31) - s31
    lo = (int(g[31]) ^ s31) - s31
    hi = (int(g[32]) ^ s31) - s31
    has_bias = int(g[33])
    use_dots = int(g[34])
    use_requant = int(g[35])
    rctl = ptr32(rctlo)  # noqa: F821
    b = 0
    while b < n:
        oy = 0
        while oy < oh:
            ox = 0
            while ox < ow:
                oc = 0
                while oc < co:
                    acc[oc] = bias[oc] if has_bias else 0
                    oc += 1
                ky = 0
                while ky < kh:
                    iy = oy * sh - ph + ky * dh
                    if 0 <= iy and iy < h:
                        kx = 0
                        while kx < kw:
                            ix = ox * sw - pw + kx * dw
                            if 0 <= ix and ix < w_:
                                xt = b * xsn + iy * xsh + ix * xsw
                                wt = ky * wsy + kx * wsx
                                if use_dots:
                                    ctl[0] = xt
                                    ctl[1] = wt
                                    dots(xo, wo_, acco, ctlo)
                                else:
                                    oc = 0
                                    while oc < co:
                                        xi = xt + (oc // og) * ig * xsc
                                        wi = wt + oc * wso
                                        s = 0
                                        ci = 0
                                        while ci < ig:
                                            s += (((x[xi] ^ 0x80) - 128) + xoff) * ((w[wi] ^ 0x80) - 128)
                                            xi += xsc
                                            wi += wsc
                                            ci += 1
                                        acc[oc] = int(acc[oc]) + s
                                        oc += 1
                            kx += 1
                    ky += 1
                oc = co
                if use_requant:
                    rctl[1] = b * osn + oy * osh + ox * osw
                    requant(acco, oo, rqo, rctlo)
                else:
                    oc = 0
                while oc < co:
                    # CMSIS-NN requantization (cortex_m/cmsis.py: requantize)
                    a = (int(acc[oc]) ^ s31) - s31
                    r = 6 * oc
                    a2 = int(rq[r])
                    a1 = int(rq[r + 1])
                    a0 = int(rq[r + 2])
                    left = int(rq[r + 3])
                    right = int(rq[r + 4])
                    lim = small >> left
                    if a >= lim or a < 0 - lim:
                        return 1
                    v = a << left
                    v1 = v >> 15
                    v0 = v & 0x7FFF
                    t = v1 * a0
                    q = (t >> 15) + (((t & 0x7FFF) + v0 * a1 + ((v0 * a0) >> 15)) >> 15)
                    p = v1 * a1
                    if a2:
                        v = (v >> 1) + (p >> 1) + (((v & 1) + (p & 1) + q + 1) >> 1)
                    else:
                        v = (p >> 1) + (((p & 1) + q + 1) >> 1)
                    if right:
                        if right > 30:
                            v = 0
                        else:
                            mask = (one << right) - 1
                            rem = v & mask
                            v = v >> right
                            thr = mask >> 1
                            if v < 0:
                                thr += 1
                            if rem > thr:
                                v += 1
                    v += ooff
                    if v < lo:
                        v = lo
                    if v > hi:
                        v = hi
                    o[b * osn + oc * osc + oy * osh + ox * osw] = v
                    oc += 1
                ox += 1
            oy += 1
        b += 1
    return 0

"""Float32 depthwise convolution in viper with integer soft-float: the
case of f32_conv_viper.conv with one input channel and one output channel
per group, where the per-pixel decoding of a receptive field into a buffer
costs as much as its few products. Here each output pixel decodes its input
values as it reads them (padding taps cost one comparison): about 35% less
time per product than conv() on unix x64.

Same number format, rounding and inf/NaN rule as f32_conv_viper (read its
docstring). Imported only where portable_kernels.util.emitters.WIDE.
Does not allocate.
"""

import micropython

# native code for ports with 64-bit words only (emitters.WIDE; host_tools/build_targets.march_list)
MARCH = ("x64", "rv64imc")


@micropython.viper
def conv_dw(x: ptr32, wm: ptr32, acc: int, wobj, weobj, oobj, biasobj, ctlobj) -> int:  # noqa: F821
    """f32_conv_viper.conv() for one input channel per group (ctl: the same
    words; any output channels per group, though with several conv() is
    faster): per output channel its kh * kw weights are decoded into wm / we,
    then each output pixel sums its taps inside the input, decoding each
    input value as it reads it (no receptive-field buffer; padding taps cost
    one comparison). Returns 1 on inf/NaN."""
    ctl = ptr32(ctlobj)  # noqa: F821
    sign_bit = 1
    sign_bit = sign_bit << 31  # computed: a literal this large is an object on 31-bit small-int targets
    inf_bits = 255
    inf_bits = inf_bits << 23
    we = ptr32(weobj)  # noqa: F821
    wsrc = ptr32(wobj)  # noqa: F821
    o = ptr32(oobj)  # noqa: F821
    bias = ptr32(biasobj)  # noqa: F821
    n = ctl[0]
    groups = ctl[1]
    opg = ctl[2]
    h = ctl[4]
    iw = ctl[5]
    kh = ctl[6]
    kw = ctl[7]
    sy = ctl[8]
    sx = ctl[9]
    py = ctl[10]
    px = ctl[11]
    dy = ctl[12]
    dx = ctl[13]
    oh = ctl[14]
    ow = ctl[15]
    has_bias = ctl[16]
    hw = h * iw
    k = kh * kw
    xbase = int(x)
    oi = 0
    for b in range(n):
        for oc in range(groups * opg):
            for t in range(k):  # decode the weights of the channel (exponents +1024, zeros 0)
                v = wsrc[oc * k + t]
                ex = (v >> 23) & 255
                mx = v & 0x7FFFFF
                if ex == 255:
                    return 1
                if ex == 0:
                    if mx != 0:
                        ex = 1025
                else:
                    ex += 1024
                    mx |= 0x800000
                if (v >> 31) & 1:
                    mx = 0 - mx
                wm[t] = mx
                we[t] = ex
            bacc = 0
            bae = 1024  # no term yet: every product of nonzero values is above
            if has_bias:  # bias * 1.0 is the first term
                v = bias[oc]
                ex = (v >> 23) & 255
                mx = v & 0x7FFFFF
                if ex == 255:
                    return 1
                if ex != 0 or mx != 0:
                    if ex == 0:
                        ex = 1
                    else:
                        mx |= 0x800000
                    bacc = mx << 23
                    if (v >> 31) & 1:
                        bacc = 0 - bacc
                    bae = ex + 1151  # 127 (the exponent of 1.0) + 1024
            xc = xbase + (b * groups + oc // opg) * hw * 4
            for oy in range(oh):
                for ox in range(ow):
                    acc = bacc
                    ae = bae
                    t = 0
                    iy = oy * sy - py
                    for _ky in range(kh):
                        if iy < 0 or iy >= h:
                            t += kw
                            iy += dy
                            continue
                        x = ptr32(xc + iy * iw * 4)  # noqa: F821
                        ix = ox * sx - px
                        for _kx in range(kw):
                            if ix < 0 or ix >= iw:
                                t += 1
                                ix += dx
                                continue
                            v = x[ix]
                            ix += dx
                            ex = (v >> 23) & 255
                            if ex == 0:
                                mx = v & 0x7FFFFF
                                if mx == 0:
                                    t += 1
                                    continue
                                ex = 1
                            else:
                                if ex == 255:
                                    return 1
                                mx = (v & 0x7FFFFF) | 0x800000
                            p = mx * ((int(wm[t]) << 32) >> 32)
                            if (v >> 31) & 1:
                                p = 0 - p
                            pe = ex + int(we[t])
                            t += 1
                            if pe > ae:
                                d = pe - ae
                                if d > 62:
                                    acc = 0
                                else:
                                    acc = acc >> d
                                ae = pe
                            else:
                                d = ae - pe
                                if d > 62:
                                    continue
                                p = p >> d
                            acc += p
                        iy += dy
                    # round acc * 2**(ae - 300) to float32 bits (as in conv)
                    ae -= 1024
                    s = 0
                    if acc < 0:
                        s = sign_bit
                        acc = 0 - acc
                    if acc == 0:
                        o[oi] = 0
                        oi += 1
                        continue
                    # block round_f32: generated by host_tools/codegen/blocks.py
                    pp = 0  # position of acc's leading bit
                    q = acc
                    if q >> 32:
                        q = q >> 32
                        pp += 32
                    if q >> 16:
                        q = q >> 16
                        pp += 16
                    if q >> 8:
                        q = q >> 8
                        pp += 8
                    if q >> 4:
                        q = q >> 4
                        pp += 4
                    if q >> 2:
                        q = q >> 2
                        pp += 2
                    if q >> 1:
                        pp += 1
                    fe = pp + ae - 173  # biased float32 exponent of the sum
                    if fe < 1:
                        fe = 1  # denormal: the mantissa's unit is 2**-149
                    sh = fe + 150 - ae
                    if sh > 0:
                        if sh > 62:  # keep a sticky bit below the rounding point
                            d = sh - 62
                            if d > 62:
                                acc = 1
                            else:
                                q = acc >> d
                                if (q << d) != acc:
                                    q |= 1
                                acc = q
                            sh = 62
                        r = acc >> sh
                        rem = acc - (r << sh)
                        half = 1 << (sh - 1)
                        if rem > half or (rem == half and (r & 1)):
                            r += 1
                    else:
                        r = acc << (0 - sh)
                    # end block round_f32
                    bits = ((fe - 1) << 23) + r  # a rounding carry moves into the exponent
                    if bits >= inf_bits:
                        bits = inf_bits
                    o[oi] = bits | s
                    oi += 1
    return 0

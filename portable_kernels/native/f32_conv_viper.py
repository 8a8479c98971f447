"""Float32 convolution in viper with integer soft-float (aten::convolution.out).

The technique of f32_mm_viper: every float32 is read as its bits (ptr32) and
split into sign, exponent and 24-bit mantissa; products of mantissas are
exact in a 64-bit viper int, and the terms of one output go into a 64-bit
fixed-point accumulator aligned to the largest product exponent seen so far.
The sum is rounded once to float32 (to nearest, ties to even; denormals;
overflow to inf) and stored as bits. No float object exists.

The weight rows (OIHW: contiguous) of a chunk of output channels are
decoded into two word buffers (signed mantissa, exponent); then per output
pixel the receptive field (cpg * kh * kw input values, zeros for the
padding) is decoded the same way and summed against every row of the chunk,
two rows at a time (each decoded input read once for both: 11% fewer
instructions per product under valgrind).
Bias is the first term (bias * 1.0). Decoded exponents carry +1024 and
zeros (padding included) are stored with exponent 0, so a product with a
zero lies more than 62 bits below any other term and is dropped without a
test of its own (ptr32 loads do not sign-extend: a negative marker would
read back as a huge exponent).

Imported only where portable_kernels.util.emitters.WIDE (64-bit native words).
An inf or NaN in an input value that some output reads, a weight or a bias
makes conv() return 1 (the output is then partly written): the caller runs
its bytecode step, which keeps torch's inf/NaN results. Terms per output must
stay below 2**14 (the caller checks) so the sum fits in 63 bits.
Does not allocate.
"""

import micropython

# native code for ports with 64-bit words only (emitters.WIDE; host_tools/build_targets.march_list)
MARCH = ("x64", "rv64imc")

# ctl words: n, groups, output channels per group, input channels per group,
# h, w, kh, kw, stride h, stride w, padding h, padding w, dilation h,
# dilation w, oh, ow, bias flag, output channels per chunk (chunk_channels),
# transposed flag (then weight is (in channels, out channels / groups, kh,
# kw) and output (oy, ox) reads input ((oy + ph - ky * dh) / sh, ...) where
# that divides exactly)
CTL_WORDS = 19
# decoded weights held at once (two words each: 64 KB of scratch)
CHUNK_WEIGHTS = 8192


def chunk_channels(opg, k):
    """Output channels whose k weights each are decoded at once: at most
    CHUNK_WEIGHTS weights (at least one channel), in chunks of equal size."""
    most = max(1, CHUNK_WEIGHTS // k)
    chunks = (opg + most - 1) // most
    return (opg + chunks - 1) // chunks


@micropython.viper
def conv(t: int, acc: int, ae: int, xmobj, xeobj, xobj, wobj, wmobj, weobj, oobj, biasobj, ctlobj) -> int:  # noqa: F821
    """out[b, c, oy, ox] = bias[c] + sum over the receptive field of input *
    weight. xm / xe: scratch of cpg * kh * kw words (the receptive field,
    decoded); wm / we: scratch of chunk * cpg * kh * kw words (the weight rows
    of a chunk of output channels, decoded). The three hottest values (term
    index, accumulator, its exponent; pass 0 for each) are the first three
    locals, the ones x64 viper keeps in registers: 8% fewer instructions than
    (mantissa row, weight row, accumulator) under valgrind. Returns 1 on
    inf/NaN."""
    ctl = ptr32(ctlobj)  # noqa: F821
    xm = ptr32(xmobj)  # noqa: F821
    acc2 = 0
    ae2 = 0
    w = ptr32(wmobj)  # noqa: F821 (the decoded weight row being summed)
    sign_bit = 1
    sign_bit = sign_bit << 31  # computed: a literal this large is an object on 31-bit small-int targets
    inf_bits = 255
    inf_bits = inf_bits << 23
    xe = ptr32(xeobj)  # noqa: F821
    x = ptr32(xobj)  # noqa: F821
    o = ptr32(oobj)  # noqa: F821
    bias = ptr32(biasobj)  # noqa: F821
    n = ctl[0]
    groups = ctl[1]
    opg = ctl[2]
    cpg = ctl[3]
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
    chunk = ctl[17]
    tr = ctl[18]
    k2 = kh * kw
    wsrc = ptr32(wobj)  # noqa: F821
    wm = ptr32(wmobj)  # noqa: F821
    we = ptr32(weobj)  # noqa: F821
    hw = h * iw
    k = cpg * kh * kw
    ohw = oh * ow
    ocn = groups * opg
    wmbase = int(wm)
    webase = int(we)
    wrow = k * 4
    for b in range(n):
        for g in range(groups):
            xg = (b * groups + g) * cpg * hw
            c0 = g * opg
            while c0 < g * opg + opg:  # chunks of output channels
                cnt = g * opg + opg - c0
                if cnt > chunk:
                    cnt = chunk
                wi = c0 * k
                wm = ptr32(wmbase)  # noqa: F821
                we = ptr32(webase)  # noqa: F821
                for t in range(cnt * k):  # decode the weight rows of the chunk
                    if tr:  # (in channels, out channels / groups, kh, kw): gather row c0 + t // k
                        ocl = t // k
                        icg = (t - ocl * k) // k2
                        v = wsrc[((g * cpg + icg) * opg + c0 - g * opg + ocl) * k2 + t - ocl * k - icg * k2]
                    else:
                        v = wsrc[wi + t]
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
                for oy in range(oh):
                    iy0 = oy * sy - py
                    for ox in range(ow):
                        ix0 = ox * sx - px
                        if tr:  # taps walk back from the output position (+ padding)
                            iy0 = oy + py
                            ix0 = ox + px
                        t = 0
                        for c in range(cpg):  # decode the receptive field
                            cb = xg + c * hw
                            iy = iy0
                            for _ky in range(kh):
                                ix = ix0
                                for _kx in range(kw):
                                    if tr:  # transposed: the input pixel whose stride lands here, if any
                                        ny = iy
                                        nx = ix
                                        iy = -1
                                        if ny >= 0 and ny % sy == 0 and nx >= 0 and nx % sx == 0:
                                            iy = ny // sy
                                            ix = nx // sx
                                    if iy < 0 or iy >= h or ix < 0 or ix >= iw:
                                        xm[t] = 0
                                        xe[t] = 0  # padding: far below any other term
                                    else:
                                        v = x[cb + iy * iw + ix]
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
                                        xm[t] = mx
                                        xe[t] = ex
                                    t += 1
                                    if tr:
                                        iy = ny
                                        ix = nx - dx
                                    else:
                                        ix += dx
                                if tr:
                                    iy -= dy
                                else:
                                    iy += dy
                        oi = (b * ocn + c0) * ohw + oy * ow + ox
                        oc = c0
                        while oc < c0 + cnt:  # output channels in pairs: each input term read once for two
                            oc2 = oc + 1
                            nres = 2
                            if oc2 == c0 + cnt:  # an odd last channel: on its own
                                oc2 = oc
                                nres = 1
                            for jj in range(2):
                                bacc = 0
                                bae = 2048  # no term yet: every product of nonzero values is above
                                if has_bias:  # bias * 1.0 is the first term
                                    v = bias[oc + jj * (oc2 - oc)]
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
                                        bae = ex + 2175  # 127 (the exponent of 1.0) + 2 * 1024
                                if jj == 0:
                                    acc = bacc
                                    ae = bae
                                else:
                                    acc2 = bacc
                                    ae2 = bae
                            w = ptr32(wmbase + (oc - c0) * wrow)  # noqa: F821
                            we = ptr32(webase + (oc - c0) * wrow)  # noqa: F821
                            w2 = ptr32(wmbase + (oc2 - c0) * wrow)  # noqa: F821
                            we2 = ptr32(webase + (oc2 - c0) * wrow)  # noqa: F821
                            if nres == 1:
                                for t in range(k):
                                    p = ((int(xm[t]) << 32) >> 32) * ((int(w[t]) << 32) >> 32)
                                    pe = int(xe[t]) + int(we[t])
                                    if pe > ae:
                                        d = pe - ae
                                        if d > 62:
                                            acc = 0
                                        else:
                                            acc = acc >> d
                                        ae = pe
                                        acc += p
                                    else:
                                        d = ae - pe
                                        if d <= 62:
                                            acc += p >> d
                            else:
                                for t in range(k):
                                    mx = (int(xm[t]) << 32) >> 32
                                    ex = int(xe[t])
                                    p = mx * ((int(w[t]) << 32) >> 32)
                                    pe = ex + int(we[t])
                                    if pe > ae:
                                        d = pe - ae
                                        if d > 62:
                                            acc = 0
                                        else:
                                            acc = acc >> d
                                        ae = pe
                                        acc += p
                                    else:
                                        d = ae - pe
                                        if d <= 62:
                                            acc += p >> d
                                    p = mx * ((int(w2[t]) << 32) >> 32)
                                    pe = ex + int(we2[t])
                                    if pe > ae2:
                                        d = pe - ae2
                                        if d > 62:
                                            acc2 = 0
                                        else:
                                            acc2 = acc2 >> d
                                        ae2 = pe
                                        acc2 += p
                                    else:
                                        d = ae2 - pe
                                        if d <= 62:
                                            acc2 += p >> d
                            for jj in range(nres):
                                if jj == 1:
                                    acc = acc2
                                    ae = ae2
                                # round acc * 2**(ae - 300) to float32 bits
                                ae -= 2048
                                s = 0
                                if acc < 0:
                                    s = sign_bit
                                    acc = 0 - acc
                                if acc == 0:
                                    o[oi] = 0
                                    oi += ohw
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
                                oi += ohw
                            oc = oc2 + 1
                c0 += cnt
    return 0

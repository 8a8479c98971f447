"""Float32 matrix products in viper integer soft-float on 32-bit native
ports (mm, bmm, addmm): the native/f32_mm_viper.py method with 32-bit words.

As there, each float32 is read as its bits (ptr32), split into sign,
exponent and 24-bit mantissa, no float object exists and nothing
allocates. A 24 x 24-bit mantissa product does not fit a 32-bit word, so
the mantissas are split into 12-bit halves: the four partial products
(below 2**24 each) give the exact 48-bit product as two limbs,
p = ph * 2**24 + pl. The terms of one output are summed in a two-limb
fixed-point accumulator V = hi * 2**24 + lo (lo kept in [0, 2**24)) whose
unit is 2**8 below the unit of the largest product seen so far: each
product enters as floor(p / 2**(8 + d)), d = how far its exponent lies
below the largest, and a larger product shifts V down instead. The sum is
rounded once to float32 (to nearest, ties to even; denormals; overflow to
inf) and stored as bits. The result is the exact sum rounded once except
for bits more than 40 places below the largest term (truncated): still
well beyond a float64 running sum's accuracy for the sums that matter.

Same arguments and ctl layout as f32_mm_viper.mm (CTL_WORDS), so op_mm
picks one or the other. An inf or NaN in an operand makes the function
return 1: the caller then runs its bytecode step (torch's inf/NaN results).
Terms per output must stay below 2**14 (the caller checks): hi then stays
below 2**30. Literals >= 2**30 would be objects on 32-bit targets: such
constants are computed at run time.
"""

import micropython
from micropython import const

# native code for 32-bit ports without Thumb-2 (those use f32_mm_thumb; host_tools/build_targets.march_list)
MARCH = ("x86", "armv6", "armv6m", "xtensa", "xtensawin", "rv32imc")

# ctl words: batches, m, k, n, b batch stride (elements), bias flag, bias
# row stride, bias column stride (elements)
CTL_WORDS = 8
# outputs summed per call of the dot loop: their (hi, lo, exponent) wait in _RES
_CHUNK = const(32)
_RES = bytearray(12 * _CHUNK)
_CW = bytearray(16)  # dot loop's words: k, outputs, b row stride (bytes), b offset (bytes)


@micropython.viper
def mm(xmobj, _w, _lo, xeobj, aobj, bobj, oobj, biasobj, ctlobj) -> int:
    """o[bt, i, j] = sum_t a[bt, i, t] * b[bt, t, j] (+ bias[i * sm + j * sn]).
    xm / xe: scratch of k words (row i of a, decoded: mantissa with the sign
    in bit 31, exponent + 512; 0 for a zero). Returns 1 on inf/NaN."""
    ctl = ptr32(ctlobj)  # noqa: F821
    sign_bit = 1
    sign_bit = sign_bit << 31  # computed: a literal this large is an object on 32-bit targets
    off = 1
    off = off << 30
    xm = ptr32(xmobj)  # noqa: F821
    xe = ptr32(xeobj)  # noqa: F821
    a = ptr32(aobj)  # noqa: F821
    bias = ptr32(biasobj)  # noqa: F821
    res = ptr32(_RES)  # noqa: F821
    cw = ptr32(_CW)  # noqa: F821
    batches = ctl[0]
    m = ctl[1]
    k = ctl[2]
    n = ctl[3]
    bstep = ctl[4] * 4
    has_bias = ctl[5]
    sm = ctl[6]
    sn = ctl[7]
    cw[0] = k
    cw[2] = n * 4
    boff = 0
    ai = 0
    oi = 0
    for _bt in range(batches):
        bi = 0
        for _i in range(m):
            for t in range(k):  # decode row i of a
                b = a[ai + t]
                ex = (b >> 23) & 255
                mx = b & 0x7FFFFF
                if ex == 255:
                    return 1
                if ex == 0:
                    if mx == 0:
                        ex = -512  # zero: its products lie below every other term
                    else:
                        ex = 1
                else:
                    mx |= 0x800000
                xm[t] = mx | (b & sign_bit)
                xe[t] = ex + 512
            ai += k
            j0 = 0
            while j0 < n:
                cnt = n - j0
                if cnt > _CHUNK:
                    cnt = _CHUNK
                for j in range(cnt):  # bias * 1.0 is the first term: mantissa * 2**23, exponent + 127
                    hi = 0
                    lo = 0
                    ae = 0
                    if has_bias:
                        b = bias[bi + (j0 + j) * sn]
                        ex = (b >> 23) & 255
                        mx = b & 0x7FFFFF
                        if ex == 255:
                            return 1
                        if ex != 0 or mx != 0:
                            if ex == 0:
                                ex = 1
                            else:
                                mx |= 0x800000
                            hi = mx >> 9  # (mx << 23) >> 8 = mx << 15, as two limbs
                            lo = (mx & 511) << 15
                            if (b >> 31) & 1:
                                hi = 0 - hi
                                lo = 0 - lo
                                hi += lo >> 24
                                lo &= 0xFFFFFF
                            ae = ex + 639  # 127 + 512
                    res[3 * j] = hi + off  # stored as hi + 2**30 >= 0: the same on 64-bit words
                    res[3 * j + 1] = lo
                    res[3 * j + 2] = ae
                cw[1] = cnt
                cw[3] = boff + j0 * 4
                if DOTS(xmobj, bobj, 0, xeobj, _RES, _CW):  # noqa: F821
                    return 1
                rounds(_RES, oobj, oi + j0, cnt)
                j0 += cnt
            oi += n
            bi += sm
        boff += bstep
    return 0


@micropython.viper
def dots(xm: ptr32, w: ptr32, lo: int, xeobj, resobj, cwobj) -> int:  # noqa: F821
    """For each of cw[1] outputs j: add sum_t a_t * b[t, j] to the two-limb
    accumulator in res[3j .. 3j+2] (hi + 2**30, lo, exponent + 512); b[0, j] at byte
    cw[3] + 4j of b, rows cw[2] bytes apart. Returns 1 on inf/NaN in b. The hot
    values (mantissa row, weight cursor, accumulator low limb) are the first
    three locals, the ones viper keeps in registers."""
    cw = ptr32(cwobj)  # noqa: F821
    xe = ptr32(xeobj)  # noqa: F821
    res = ptr32(resobj)  # noqa: F821
    k = cw[0]
    wstep = cw[2]
    base = int(w) + cw[3]
    off = 1
    off = off << 30
    for j in range(cw[1]):
        hi = int(res[3 * j]) - off
        lo = res[3 * j + 1]
        ae = res[3 * j + 2]
        w = ptr32(base + j * 4)  # noqa: F821
        for t in range(k):
            b = w[0]
            w = ptr32(int(w) + wstep)  # noqa: F821
            ew = (b >> 23) & 255
            if ew == 0:
                mw = b & 0x7FFFFF
                if mw == 0:
                    continue
                ew = 1
            else:
                if ew == 255:
                    return 1
                mw = (b & 0x7FFFFF) | 0x800000
            v = xm[t]
            if ((v ^ b) >> 31) & 1:  # the product's sign goes on b's mantissa
                mw = 0 - mw
            ah = (v >> 12) & 0xFFF
            al = v & 0xFFF
            bh = mw >> 12  # signed halves: mw = bh * 4096 + bl, bl in [0, 4096)
            bl = mw & 0xFFF
            mid = ah * bl + al * bh
            ph = ah * bh + (mid >> 12)
            pl = al * bl + ((mid & 0xFFF) << 12)
            pe = int(xe[t]) + ew
            if pe > ae:  # a new largest term: V moves down
                d = pe - ae
                ae = pe
                if d > 56:
                    d = 56  # |V| < 2**55: the same result
                while d >= 24:
                    lo = hi & 0xFFFFFF
                    hi = hi >> 24
                    d -= 24
                if d:
                    lo = ((hi & ((1 << d) - 1)) << (24 - d)) | (lo >> d)
                    hi = hi >> d
                s = 8
            else:
                s = ae - pe + 8
            if s < 24:
                lo += ((ph & ((1 << s) - 1)) << (24 - s)) + (pl >> s)
                hi += ph >> s
            elif s < 48:
                lo += ph >> (s - 24)
            else:
                continue
            hi += lo >> 24
            lo &= 0xFFFFFF
        res[3 * j] = hi + off
        res[3 * j + 1] = lo
        res[3 * j + 2] = ae
    return 0


@micropython.viper
def rounds(resobj, oobj, oi: int, cnt: int):
    """o[oi + j] = the float32 bits of V * 2**(e - 804) rounded once (to
    nearest, ties to even; denormals; overflow to inf), for the cnt
    accumulators (hi + 2**30, lo, e; V = hi * 2**24 + lo) of res."""
    res = ptr32(resobj)  # noqa: F821
    o = ptr32(oobj)  # noqa: F821
    sign_bit = 1
    sign_bit = sign_bit << 31
    inf_bits = 255
    inf_bits = inf_bits << 23
    off = 1
    off = off << 30
    for j in range(cnt):
        hi = int(res[3 * j]) - off
        lo = res[3 * j + 1]
        ae = res[3 * j + 2] - 512
        sg = 0
        if hi < 0:
            sg = 1
            hi = 0 - hi
            lo = 0 - lo
            hi += lo >> 24
            lo &= 0xFFFFFF
        if hi == 0 and lo == 0:
            o[oi + j] = 0
            continue
        pp = 0
        q = lo
        if hi:
            q = hi
            pp = 24
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
        fe = pp + ae - 165  # biased float32 exponent of the sum
        if fe >= 255:
            bits = inf_bits
        else:
            if fe < 1:
                fe = 1  # denormal: the mantissa's unit is 2**-149
            sh = fe + 142 - ae  # V >> sh is the mantissa
            if sh > 0:
                if sh > 55:
                    r = 0  # |V| < 2**54: below half of the smallest denormal
                else:
                    if sh >= 24:
                        r = hi >> (sh - 24)
                    else:
                        r = (hi << (24 - sh)) | (lo >> sh)
                    g = sh - 1  # round bit position; sticky = bits below it
                    if g >= 24:
                        rb = (hi >> (g - 24)) & 1
                        st = lo | (hi & ((1 << (g - 24)) - 1))
                    else:
                        rb = (lo >> g) & 1
                        st = lo & ((1 << g) - 1)
                    if rb and (st or (r & 1)):
                        r += 1
            else:
                r = lo << (0 - sh)
            bits = ((fe - 1) << 23) + r  # a rounding carry moves into the exponent
            if bits >= inf_bits:
                bits = inf_bits
        if sg:
            bits |= sign_bit
        o[oi + j] = bits


DOTS = dots

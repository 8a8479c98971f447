"""Float32 softmax in viper with integer soft-float: no float object per
element, no allocation. Each result within 1 ulp of the correctly rounded
exp(x_i - max) / sum_j exp(x_j - max).

Per row: the max by ordering keys of the bit patterns; each d = max - x_i in
Q40 (exact up to 2**-40), Z = d * log2(e) (three products with a 60-bit
log2(e)), exp(-d) = 2**-Z = 2**-k * p with p = 2**F (|F| <= 1/2) from a Q32
Taylor series, as f32_sigmoid_viper does. The first pass sums the terms in
Q48 fixed point (a row of up to 2**14 elements cannot overflow), the second
recomputes each term and divides it by the sum (two-step integer long
division, sticky bit), rounding once to nearest even (denormals; d >= 128
gives +0, as exp underflows there).

Imported only where portable_kernels.util.emitters.WIDE (64-bit viper ints). A
row holding NaN or +inf, or only -inf, or with |max| >= 2**21 or longer than
2**14 stops the function: it returns the number of rows done and the caller
runs its bytecode loop from that row (rows are written only in their second
pass, so in place is safe). -inf elements give +0. Literals stay below 2**30
so the module compiles for 32-bit targets too.
"""

import micropython

# native code for ports with 64-bit words only (emitters.WIDE; host_tools/build_targets.march_list)
MARCH = ("x64", "rv64imc")


@micropython.viper
def softmax(x: ptr32, o: ptr32, outer: int, size: int, inner: int) -> int:  # noqa: F821
    """Softmax along rows of `size` elements at stride `inner`, rows at
    b * size * inner + s (b < outer, s < inner). Returns the rows done."""
    one = 1
    lh = 774541002  # log2(e) * 2**60 = lh * 2**30 + ll
    lh = lh << 1
    ll = 730005015
    c1 = 744261118  # ln2 * 2**32
    c1 = c1 << 2
    c0 = one << 32
    lim = one << 47  # d >= 128: exp(-d) * 2**149 < 2**-35
    low31 = (one << 31) - 1
    if size > 16384:
        return 0
    span = size * inner
    row = 0
    for b in range(outer):
        for s0 in range(inner):
            base = b * span + s0
            end = base + span
            # the max, and no NaN / +inf
            mk = 0
            mb = 0
            first = 1
            i = base
            while i < end:
                v = x[i]
                i += inner
                if ((v >> 23) & 255) == 255:
                    if (v & 0x7FFFFF) or not ((v >> 31) & 1):
                        return row
                    continue  # -inf
                key = v & low31
                if (v >> 31) & 1:
                    key = 0 - key
                if first or key > mk:
                    mk = key
                    mb = v
                    first = 0
            me = (mb >> 23) & 255
            if first or me > 147:
                return row
            mm = mb & 0x7FFFFF
            if me == 0:
                me = 1
            else:
                mm |= 0x800000
            big = 0
            if me >= 110:
                big = mm << (me - 110)
            elif 110 - me <= 62:
                big = mm >> (110 - me)
            if (mb >> 31) & 1:
                big = 0 - big
            total = 0
            bl = 0
            dn = 1
            for pas in range(2):
                i = base
                while i < end:
                    v = x[i]
                    e = (v >> 23) & 255
                    m = v & 0x7FFFFF
                    if e == 0:
                        e = 1
                    else:
                        m |= 0x800000
                    d = lim
                    if e <= 148:
                        xv = 0
                        if e >= 110:
                            xv = m << (e - 110)
                        elif 110 - e <= 62:
                            xv = m >> (110 - e)
                        if (v >> 31) & 1:
                            xv = 0 - xv
                        d = big - xv
                    if d >= lim:  # also -inf and large negative values
                        if pas:
                            o[i] = 0
                        i += inner
                        continue
                    dh = d >> 24
                    dl = d & 0xFFFFFF
                    z = ((dh * lh) >> 6) + ((dh * ll) >> 36) + ((dl * lh) >> 30)
                    k = (z + (one << 39)) >> 40
                    f40 = (k << 40) - z
                    f = f40 >> 9
                    p = 437
                    p = ((p * f) >> 31) + 5676
                    p = ((p * f) >> 31) + 65510
                    p = ((p * f) >> 31) + 661577
                    p = ((p * f) >> 31) + 5726720
                    p = ((p * f) >> 31) + 41309550
                    p = ((p * f) >> 31) + 238388332
                    p = ((p * f) >> 31) + 1031764991
                    p = ((p * f) >> 31) + c1
                    p = c0 + (((p >> 16) * f40) >> 24) + (((p & 0xFFFF) * f40) >> 40)
                    if pas == 0:
                        if k <= 62:
                            total += (p << 16) >> k  # Q48
                        i += inner
                        continue
                    num = p << 30
                    q = num // dn
                    r = num - q * dn
                    r = r << 21
                    q2 = r // dn
                    acc = (q << 21) + q2
                    if q2 * dn != r:
                        acc |= 1
                    ae = 305 - k - bl
                    # round acc * 2**(ae - 300) to float32 bits (as f32_arith_viper does)
                    # block round_f32(d=dd): generated by host_tools/codegen/blocks.py
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
                            dd = sh - 62
                            if dd > 62:
                                acc = 1
                            else:
                                q = acc >> dd
                                if (q << dd) != acc:
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
                    o[i] = ((fe - 1) << 23) + r
                    i += inner
                if pas == 0:  # the sum (>= 1) as dn * 2**(bl - 40 - 48), dn in [2**40, 2**41)
                    bl = 0
                    q = total
                    while q >> 1:
                        q = q >> 1
                        bl += 1
                    dn = total >> (bl - 40)
            row += 1
    return row

"""Float32 layer norm rows in viper with integer soft-float: the passes over
the elements touch no float object and allocate nothing; only the per-row
scalars (mean, rstd = 1 / sqrt(var + eps)) are computed by the caller in
Python floats (op_native_layer_norm).

`stats`: the row's largest exponent emax; each x as X = x * 2**(174 - emax)
(24 guard bits: exact for every element within 2**24 of the largest); the
exact sum S; D = len * X - S = len * (x - mean) * 2**(174 - emax) exactly;
the sum of squares of D (each cut to 31 significant bits at the row's
scale) in two limbs. `normalize`: per element D cut to 31 bits at its own
scale (relative precision), times the caller's 31-bit R = rstd / len *
2**(emax - 174), times w's mantissa, plus b aligned with a sticky bit, then
one round to nearest even (as f32_arith_viper).

Imported only where portable_kernels.util.emitters.WIDE (64-bit viper ints).
`stats` refuses (returns 1) a row holding an inf/NaN (in x, w or b) or
longer than 8,192 elements: the caller runs that row in bytecode; nothing
is written before that check, so in place is safe. Literals stay below 2**30
so the module compiles for 32-bit targets too.
"""

import micropython

# native code for ports with 64-bit words only (emitters.WIDE; host_tools/build_targets.march_list)
MARCH = ("x64", "rv64imc")


@micropython.viper
def stats(x: ptr32, i0: int, n: int, w: ptr32, b: ptr32, flags: int, res) -> int:  # noqa: F821
    """Row x[i0:i0 + n]: res[0] = emax, res[1] = S, res[2] = the shift r
    that brings every |D| below 2**40, res[3..5] = the sums of dh * dh,
    dh * dl and dl * dl with D >> r == dh * 2**20 + dl (so the sum of
    squares is exact at that scale). flags: 1 w present, 2 b present. Returns 0, or
    1 when the row must run in bytecode."""
    if n > 8192:
        return 1
    one = 1
    b40 = one << 40
    emax = 1
    for j in range(n):
        v = x[i0 + j]
        e = (v >> 23) & 255
        if e == 255:
            return 1
        if e > emax:
            emax = e
        if flags & 1 and ((w[j] >> 23) & 255) == 255:
            return 1
        if flags & 2 and ((b[j] >> 23) & 255) == 255:
            return 1
    s = 0
    for j in range(n):
        v = x[i0 + j]
        e = (v >> 23) & 255
        m = v & 0x7FFFFF
        if e == 0:
            e = 1
        else:
            m |= 0x800000
        sh = emax - e
        xv = 0
        if sh <= 62:
            xv = (m << 24) >> sh
        if (v >> 31) & 1:
            xv = 0 - xv
        s += xv
    big = 0
    for j in range(n):
        v = x[i0 + j]
        e = (v >> 23) & 255
        m = v & 0x7FFFFF
        if e == 0:
            e = 1
        else:
            m |= 0x800000
        sh = emax - e
        xv = 0
        if sh <= 62:
            xv = (m << 24) >> sh
        if (v >> 31) & 1:
            xv = 0 - xv
        d = n * xv - s
        if d < 0:
            d = 0 - d
        if d > big:
            big = d
    r = 0
    while (big >> r) >= b40:
        r += 1
    sa = 0
    sb = 0
    sc = 0
    for j in range(n):
        v = x[i0 + j]
        e = (v >> 23) & 255
        m = v & 0x7FFFFF
        if e == 0:
            e = 1
        else:
            m |= 0x800000
        sh = emax - e
        xv = 0
        if sh <= 62:
            xv = (m << 24) >> sh
        if (v >> 31) & 1:
            xv = 0 - xv
        d = (n * xv - s) >> r  # |d| < 2**40: d == dh * 2**20 + dl
        dh = d >> 20
        dl = d & 0xFFFFF
        sa += dh * dh
        sb += dh * dl
        sc += dl * dl
    res[0] = emax
    res[1] = s
    res[2] = r
    res[3] = sa
    res[4] = sb
    res[5] = sc
    return 0


@micropython.viper
def normalize(x: ptr32, o: ptr32, i0: int, n: int, w: ptr32, b: ptr32, flags: int, emax: int, s: int, rm: int, re: int):  # noqa: F821
    """o[i0 + j] = (x - mean) * rstd * w[j] + b[j] over the row, with
    D * rm * 2**re == (x - mean) * rstd (rm < 2**38)."""
    one = 1
    inf_bits = 255
    inf_bits = inf_bits << 23
    low31 = (one << 31) - 1
    b40 = one << 40
    for j in range(n):
        v = x[i0 + j]
        e = (v >> 23) & 255
        m = v & 0x7FFFFF
        if e == 0:
            e = 1
        else:
            m |= 0x800000
        sh = emax - e
        xv = 0
        if sh <= 62:
            xv = (m << 24) >> sh
        if (v >> 31) & 1:
            xv = 0 - xv
        d = n * xv - s
        sg = 0
        if d < 0:
            d = 0 - d
            sg = 1
        bb = 0
        if flags & 2:
            bb = b[j]
        if d == 0:
            if flags & 2:
                o[i0 + j] = bb
            else:
                o[i0 + j] = 0
            continue
        # D to 40 bits, times rm * wm (62 bits) cut to 40: acc * 2**ae
        c = 0
        while (d >> c) >= b40:
            c += 1
        d = d >> c
        wm = one << 23
        we = 127
        if flags & 1:
            wv = w[j]
            we = (wv >> 23) & 255
            wm = wv & 0x7FFFFF
            if we == 0:
                we = 1
            else:
                wm |= 0x800000
            if (wv >> 31) & 1:
                sg ^= 1
        rw = (rm * wm) >> 22
        acc = (d >> 20) * rw + (((d & 0xFFFFF) * rw) >> 20)  # < 2**60
        ae = c + re + we - 108
        if acc == 0:
            if flags & 2:
                o[i0 + j] = bb
            else:
                o[i0 + j] = 0
            continue
        if flags & 2 and (bb & low31):
            # acc * 2**ae (sign sg) + b: both as 62-bit fixed point at a shared scale
            be = (bb >> 23) & 255
            bm = bb & 0x7FFFFF
            if be == 0:
                be = 1
            else:
                bm |= 0x800000
            bae = be - 150
            # acc below 2**60 (sticky bit), so the sum cannot overflow
            while acc >= (one << 60):
                q = acc >> 1
                if q + q != acc:
                    q |= 1
                acc = q
                ae += 1
            bv = bm << 36  # < 2**60
            bae -= 36
            if ae >= bae:
                dd = ae - bae
                if dd > 62:
                    bv = 1
                else:
                    q = bv >> dd
                    if (q << dd) != bv:
                        q |= 1
                    bv = q
            else:
                dd = bae - ae
                if dd > 62:
                    acc = 1
                else:
                    q = acc >> dd
                    if (q << dd) != acc:
                        q |= 1
                    acc = q
                ae = bae
            if sg:
                acc = 0 - acc
            if (bb >> 31) & 1:
                bv = 0 - bv
            acc = acc + bv
            sg = 0
            if acc < 0:
                acc = 0 - acc
                sg = 1
            elif acc == 0:
                o[i0 + j] = 0
                continue
        # round acc * 2**ae to float32 bits (as f32_arith_viper: value acc * 2**(ae' - 300))
        ae = ae + 300
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
        bits = ((fe - 1) << 23) + r
        if bits >= inf_bits:
            bits = inf_bits
        if sg:
            bits |= one << 31
        o[i0 + j] = bits

"""Float32 sigmoid and tanh in viper with integer soft-float: no float
object per element, no allocation. Within 1 ulp of the correctly rounded
result (about 2**-31 relative error before the one final rounding).

exp(-|x|) (sigmoid) or exp(-2|x|) (tanh) as 2**-Z: Z = |x| * log2(e) in
Q40 from the 24-bit mantissa and a 60-bit log2(e) (two exact products);
Z = k - F with k an integer and |F| <= 1/2, and 2**F by its Taylor series
(ln2**j / j!, Q32 Horner; the last step with F in Q40). Then
  sigmoid(|x|) = 1 / (1 + u), sigmoid(-|x|) = u / (1 + u),
  tanh(|x|) = (1 - u) / (1 + u)   (u = 2**-Z <= 1)
by a two-step integer long division (44-bit quotient, sticky bit), rounded
once to nearest even (denormals). tanh below 2**-4 in magnitude is
x * g(x**2), g the Taylor series of tanh(x) / x to x**8 (relative accuracy
near 0). |x| >= 128 saturates.

Imported only where portable_kernels.util.emitters.WIDE (64-bit viper ints). At
an inf or NaN the function stops and returns how many elements it wrote;
the caller runs its bytecode loop from there (in-place safe). Literals stay
below 2**30 so the module compiles for 32-bit targets too.
"""

import micropython

# native code for ports with 64-bit words only (emitters.WIDE; host_tools/build_targets.march_list)
MARCH = ("x64", "rv64imc")

SIGMOID = 0
TANH = 1
GELU_TANH = 2  # x * sigmoid(2 * sqrt(2/pi) * (x + 0.044715 * x**3)), gelu's tanh form


@micropython.viper
def unary(a: ptr32, o: ptr32, n: int, op: int) -> int:  # noqa: F821
    """o[i] = sigmoid(a[i]) (op SIGMOID), tanh(a[i]) (op TANH) or gelu's
    tanh form (op GELU_TANH) for i < n. Returns the count written: n, or
    the index of the first inf/NaN."""
    one = 1
    b60 = one << 60
    b62 = one << 62
    lh = 774541002  # log2(e) * 2**60 = lh * 2**30 + ll
    lh = lh << 1
    ll = 730005015
    c1 = 744261118  # ln2 * 2**32
    c1 = c1 << 2
    g1 = 715827882  # 2**34 / 3
    g1 = (g1 << 3) | 5
    g2 = 572662306  # 2**35 / 15
    g2 = g2 << 2
    g0 = one << 34
    c0 = one << 32
    one_bits = 127 << 23
    k1 = 856722023  # 2 * sqrt(2/pi) * 2**32
    k1 = (k1 << 3) | 5
    k3 = 612933204  # 2 * sqrt(2/pi) * 0.044715 * 2**34
    k3 = (k3 << 1) | 1
    eleven = 546832384  # the bits of 11.0
    eleven = eleven << 1
    low31 = (one << 31) - 1
    for i in range(n):
        x = a[i]
        e = (x >> 23) & 255
        m = x & 0x7FFFFF
        s = 0
        if (x >> 31) & 1:
            s = one << 31
        if e == 255:
            return i
        if e == 0:
            e = 1
        else:
            m |= 0x800000
        if op == 2 and (x & low31) >= eleven:  # |x| >= 11: x, or -0.0 (below the smallest denormal)
            if s:
                o[i] = s
            else:
                o[i] = x
            continue
        if e >= 134:  # |x| >= 128: saturated
            if op == 1:
                o[i] = one_bits | s
            elif s:
                o[i] = 0
            else:
                o[i] = one_bits
            continue
        if op == 1 and e < 123:  # tanh, |x| < 2**-4: x * g(x * x)
            if m == 0:
                o[i] = s
                continue
            sh = 264 - e - e
            x2 = 0
            if sh <= 62:
                x2 = (m * m) >> sh  # x * x in Q36, < 2**28
            g = 375714952  # 62 / 2835 * 2**34
            g = ((g * x2) >> 36) - 927167543  # 17 / 315
            g = ((g * x2) >> 36) + g2
            g = ((g * x2) >> 36) - g1
            g = ((g * x2) >> 36) + g0
            acc = m * g
            ae = e + 116  # acc * 2**(ae - 300)
        else:
            # Z = |x| * log2(e) in Q40 (times 2 for tanh)
            z = 0
            if op == 2:  # W = |x| * (k1 + k3 * x * x) in Q40 (|x| < 11: W < 128), then Z = W * log2(e)
                sh = 268 - e - e
                x2 = 0
                if sh <= 62:
                    x2 = (m * m) >> sh  # x * x in Q32, < 2**39
                g = k1 + ((((x2 >> 20) * k3) >> 14) + (((x2 & 0xFFFFF) * k3) >> 34))  # Q32, < 2**37
                sh = 142 - e
                w = 0
                if sh <= 62:
                    w = (m * g) >> sh
                dh = w >> 24
                dl = w & 0xFFFFFF
                z = ((dh * lh) >> 6) + ((dh * ll) >> 36) + ((dl * lh) >> 30)
            else:
                sh = 140 - e
                if sh <= 62:
                    z = (m * lh + ((m * ll) >> 30)) >> sh
            if op == 1:
                z = z + z
            k = (z + (one << 39)) >> 40
            f40 = (k << 40) - z  # u = 2**-z = 2**-k * 2**(f40 / 2**40)
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
            p = c0 + (((p >> 16) * f40) >> 24) + (((p & 0xFFFF) * f40) >> 40)  # 2**F in Q32
            u = 0
            if k <= 62:
                u = (p << 28) >> k  # u in Q60
            d = (b60 + u) >> 21  # 1 + u in Q39
            ae = 256
            if op == 1:
                num = (b60 - u) << 2
            elif s:
                num = p << 30
                ae = 256 - k
                s = 0
            else:
                num = b62
            q = num // d
            r = num - q * d
            r = r << 21
            q2 = r // d
            acc = (q << 21) + q2
            if q2 * d != r:
                acc |= 1
            if op == 0:
                s = 0
            elif op == 2:  # x * sigmoid: the quotient cut to 32 bits, times the mantissa
                if (x >> 31) & 1:
                    s = one << 31
                if m == 0:
                    o[i] = s
                    continue
                acc = (acc >> 12) * m
                ae = ae + e - 138
        # round acc * 2**(ae - 300) (acc > 0) to float32 bits, as f32_arith_viper does
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
        o[i] = (((fe - 1) << 23) + r) | s
    return n

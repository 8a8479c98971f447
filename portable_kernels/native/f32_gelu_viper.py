"""Float32 gelu (exact, erf form: x * Phi(x)) in viper with integer
soft-float: no float object per element, no allocation. Within 1 ulp of
the correctly rounded x * Phi(x), also for x << 0 where the bytecode's
1 + erf(x / sqrt(2)) cancels.

With t = |x| and Q(t) = Phi(-t) = exp(-t*t/2) * R(t), R(t) = erfc(t /
sqrt(2)) / 2 * exp(t*t/2) (a smooth, slowly decreasing function): gelu(x) =
x * (1 - Q(t)) for x >= 0 and x * Q(t) for x < 0. exp(-t*t/2) = 2**-Z as in
f32_sigmoid_viper (t*t exact from the mantissa, Z in Q40, 2**F by a Q32
Taylor series); R on 30 intervals of 1/2 over [0, 15) by degree-7
polynomials (Chebyshev nodes, Q31 coefficients scaled by 2**s per interval,
relative error below 2**-31: TABLE, 9 words an interval: s, c0..c7).
x >= 6 gives x, x <= -15 gives -0.0 (the result is below the smallest
denormal). One round to nearest even at the end.

Imported only where portable_kernels.util.emitters.WIDE (64-bit viper ints). At
an inf or NaN the function stops and returns how many elements it wrote;
the caller runs its bytecode loop from there (in-place safe). Literals stay
below 2**30 so the module compiles for 32-bit targets too.
"""

import micropython

# native code for ports with 64-bit words only (emitters.WIDE; host_tools/build_targets.march_list)
MARCH = ("x64", "rv64imc")

TABLE = bytes.fromhex(
    "010000000502fe69b26b5eb422cf8a2b3c0a6bea852f89094b2429fc9f34730135047fff"
    "01000000df08dc4cd8f183d34c7fbf1503db9bf61d0bad03e059acfe59c373001457dbff"
    "0200000082372676c49b6dc7359db717066006f754dd1f030975fcfea9095000abdce8ff"
    "020000004cafd65e2689b5d9b02fea0d2c745afb341c72019da293ff48551e0021faf7ff"
    "020000007c77ab4e39a3bfe46153ad08448a6cfdbc61b8000815cfff7e790c001bf9fcff"
    "02000000335aee426f4ecdebf378b105ae737cfe6fed6100fa59e8fffe830500bbc4feff"
    "0300000002c72c7489330de141d7cb075e3a21fef8f46d00eeb7e7ff5233050096edfeff"
    "03000000b7ad70663038a2e736808805a95dcbfebec74000d9dbf2ff4f9802002d81ffff"
    "030000005c02815bcbf65fec9d6d0c04389831ff15cd2700d18cf8ff995c010028c2ffff"
    "0300000064929c521e64e3effa560a036c8071ff385e19009f99fbff4bbf00005ce0ffff"
    "03000000b17f404b224b8ef211c5550294dc9affc4b210003c4efdff3d6d00001aefffff"
    "030000004b69114533ca9ff4f819d4012d75b6ffed4e0b00cf4bfeffa34000009ff6ffff"
    "040000008c979b7fb2cc83ec73abe902c0be92ffe8b40f004ac8fdfff84e000038f5ffff"
    "04000000522b8b76f0bd22efb1d65a020a4dadffac270b00f884feffa33100009cf9ffff"
    "04000000f490a96e70b444f18fd6ed010058c0ff231508000dfdfeff052000001afcffff"
    "0400000083e5bf673d8c06f32e5299010a43ceff6ff60500614bffff241500008ffdffff"
    "04000000a0a2a3612d577df4ead856013d9cd8ff79780400a17fffff420e000070feffff"
    "04000000b35b335ce6bbb8f5e9e32101b56ce0ffc666030032a3ffffcd090000fafeffff"
    "04000000e37354577589c4f6ad35f700a668e6ff6c9f0200dcbbffffdc06000051ffffff"
    "040000000c7bf1523fc9a9f79a72d400e10cebff0a0c020040cdffffe104000089ffffff"
    "040000002cfdf84e897c6ff8d2dcb70051b1eeff959d0100b6d9ffff85030000aeffffff"
    "0400000084a15c4bcc211bf96926a000e594f1ffc2490100c3e2ffff93020000c6ffffff"
    "040000005c8210481414b1f91d528c004ae5f3ff680901006de9ffffe9010000d7ffffff"
    "0400000080ad0a4526d034faa29d7b001cc4f5ff7ad7000064eeffff6e010000e2ffffff"
    "040000006fc242425b27a9fa45726d00614af7ff5ab0000023f2ffff16010000eaffffff"
    "050000002a4d637fe3ca20f6fdb3c200e815f1ffd2220100f9e9ffffa9010000e0ffffff"
    "05000000db93a27a20dad8f604efad005e28f3ff77f100005beeffff49010000e8ffffff"
    "0500000047f03876de9a7df7db009c0034e2f4ffcac90000c3f1ffff00010000eeffffff"
    "0500000062661d7200a611f8f0718c008a54f6ffa8a900006df4ffffc9000000f2ffffff"
    "05000000b02a486eb22897f877e17e00c58cf7ff738f000087f6ffffa0000000f6ffffff"
)


@micropython.viper
def gelu(a: ptr32, o: ptr32, n: int, tab: ptr32) -> int:  # noqa: F821
    """o[i] = a[i] * Phi(a[i]) for i < n (tab: TABLE). Returns the count
    written: n, or the index of the first inf/NaN."""
    one = 1
    lh = 774541002  # log2(e) * 2**60 = lh * 2**30 + ll
    lh = lh << 1
    ll = 730005015
    c1 = 744261118  # ln2 * 2**32
    c1 = c1 << 2
    c0 = one << 32
    b60 = one << 60
    low31 = (one << 31) - 1
    six = 543162368  # the bits of 6.0 and 15.0
    six = six << 1
    fifteen = 548929536
    fifteen = fifteen << 1
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
        ax = x & low31
        if s == 0 and ax >= six:
            o[i] = x
            continue
        if s and ax >= fifteen:
            o[i] = s
            continue
        if m == 0:
            o[i] = s
            continue
        # exp(-t*t/2) = 2**-k * p (p in Q32)
        z = 0
        sh = 261 - e - e
        if sh <= 62:
            d = (m * m) >> sh  # t*t/2 in Q40, < 2**47
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
        # R(t) = P * 2**(-31 - sr): t in Q40, interval j = floor(2t), u = t - (j + 1/2) / 2 in Q31
        t40 = 0
        if e >= 110:
            t40 = m << (e - 110)
        elif 110 - e <= 62:
            t40 = m >> (110 - e)
        j = t40 >> 39
        u = (t40 - (j << 39) - (one << 38)) >> 9
        j = j * 9
        sr = tab[j]
        r = tab[j + 8]
        r = (r << 32) >> 32  # a signed coefficient
        kk = j + 7
        while kk > j:
            cc = tab[kk]
            cc = (cc << 32) >> 32
            r = ((r * u) >> 31) + cc
            kk -= 1
        pq = (p >> 1) * r  # Q(t) = pq * 2**(-62 - k - sr)
        if s:
            acc = (pq >> 32) * m
            ae = e + 120 - k - sr
        else:
            q = 0
            sh = 2 + k + sr
            if sh <= 62:
                q = pq >> sh
            acc = ((b60 - q) >> 28) * m
            ae = e + 118
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

"""Float32 matrix products in viper with integer soft-float (mm, bmm, addmm).

Bytecode boxes a float per read and per arithmetic result; here no float
object exists at all. Each float32 is read as its bits (ptr32) and split into
sign, exponent and 24-bit mantissa; products of mantissas are exact in a
64-bit viper int, and the terms of one output go into a 64-bit fixed-point
accumulator aligned to the largest product exponent seen so far. The sum is
rounded once to float32 (to nearest, ties to even; denormals; overflow to
inf) and stored as bits. The result is the exact sum rounded once, except
for bits more than 48 places below the largest term, which are truncated:
at least as accurate as a float64 running sum.

Imported only where portable_kernels.util.emitters.WIDE (64-bit native words);
32-bit ports keep the bytecode steps. An inf or NaN in an operand makes the
function return 1 before anything is trusted: the caller then runs its
bytecode step, which keeps torch's inf/NaN results. Terms per output must
stay below 2**14 (the caller checks) so the sum fits in 63 bits.
Does not allocate. Every literal fits a 31-bit small int, so the module
also compiles for 32-bit targets (which never import it).
"""

import micropython

# native code for ports with 64-bit words only (emitters.WIDE; host_tools/build_targets.march_list)
MARCH = ("x64", "rv64imc")

# ctl words: batches, m, k, n, b batch stride (elements), bias flag, bias
# row stride, bias column stride (elements), and 1 to decode the elements of
# a as they are read instead of a row at a time into xm / xe (long rows: the
# scratch would grow with k; about 20% slower per product)
CTL_WORDS = 9
# the longest row of a decoded into scratch (2 * 4 * ROW_WORDS bytes)
ROW_WORDS = 256


@micropython.viper
def mm(xm: ptr32, w: ptr32, acc: int, xeobj, aobj, bobj, oobj, biasobj, ctlobj) -> int:  # noqa: F821
    """o[bt, i, j] = sum_t a[bt, i, t] * b[bt, t, j] (+ bias[i * sm + j * sn]).
    xm / xe: scratch of k words (row i of a, decoded). The three hot values
    (mantissa row, weight cursor, accumulator) are the first three locals,
    the ones x64 viper keeps in registers. Returns 1 on inf/NaN."""
    ctl = ptr32(ctlobj)  # noqa: F821
    sign_bit = 1
    sign_bit = sign_bit << 31  # computed: a literal this large is an object on 31-bit small-int targets
    inf_bits = 255
    inf_bits = inf_bits << 23
    xe = ptr32(xeobj)  # noqa: F821
    a = ptr32(aobj)  # noqa: F821
    o = ptr32(oobj)  # noqa: F821
    bias = ptr32(biasobj)  # noqa: F821
    batches = ctl[0]
    m = ctl[1]
    k = ctl[2]
    n = ctl[3]
    bstep = ctl[4] * 4
    has_bias = ctl[5]
    sm = ctl[6]
    sn = ctl[7]
    as_read = ctl[8]
    xbase = int(xm)
    bbase = int(ptr32(bobj))  # noqa: F821
    wstep = n * 4
    ai = 0
    oi = 0
    for _bt in range(batches):
        bi = 0
        for _i in range(m):
            xm = ptr32(xbase)  # noqa: F821
            for t in range(k if not as_read else 0):  # decode row i of a
                b = a[ai + t]
                ex = (b >> 23) & 255
                mx = b & 0x7FFFFF
                if ex == 255:
                    return 1
                if ex == 0:
                    if mx == 0:
                        ex = -1024  # zero: its products lie below every other term
                    else:
                        ex = 1
                else:
                    mx |= 0x800000
                if (b >> 31) & 1:
                    mx = 0 - mx
                xm[t] = mx
                xe[t] = ex + 1024  # exponents carry +1024 (stored unsigned)
            ai0 = ai
            ai += k
            for j in range(n):
                acc = 0
                ae = 0
                if has_bias:  # bias * 1.0 is the first term
                    b = bias[bi + j * sn]
                    ex = (b >> 23) & 255
                    mx = b & 0x7FFFFF
                    if ex == 255:
                        return 1
                    if ex != 0 or mx != 0:
                        if ex == 0:
                            ex = 1
                        else:
                            mx |= 0x800000
                        acc = mx << 23
                        if (b >> 31) & 1:
                            acc = 0 - acc
                        ae = ex + 1151  # 127 (the exponent of 1.0) + 1024
                w = ptr32(bbase + j * 4)  # noqa: F821
                for t in range(k if as_read else 0):  # a decoded as read
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
                    x = a[ai0 + t]
                    ex = (x >> 23) & 255
                    if ex == 0:
                        mx = x & 0x7FFFFF
                        if mx == 0:
                            continue
                        ex = 1
                    else:
                        if ex == 255:
                            return 1
                        mx = (x & 0x7FFFFF) | 0x800000
                    p = mx * mw
                    if ((b ^ x) >> 31) & 1:
                        p = 0 - p
                    pe = ex + ew + 1024
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
                for t in range(k if not as_read else 0):  # a decoded into xm / xe
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
                    p = ((int(xm[t]) << 32) >> 32) * mw
                    if (b >> 31) & 1:
                        p = 0 - p
                    pe = int(xe[t]) + ew
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
                # round acc * 2**(ae - 300) to float32 bits
                ae -= 1024
                s = 0
                if acc < 0:
                    s = sign_bit
                    acc = 0 - acc
                if acc == 0:
                    o[oi + j] = 0
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
                o[oi + j] = bits | s
            oi += n
            bi += sm
        bbase += bstep
    return 0

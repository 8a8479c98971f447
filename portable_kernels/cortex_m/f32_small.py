"""ExecuTorch's float32 average of one avg-pool window, replayed in small ints.

At an exact rounding tie (cortex_m/pool.py) the reference's float32 error
decides the result: sum the window's terms fl((x - zp) * scale) in row-major
order (each add rounded to float32, to nearest even), divide by the count,
divide by the scale, round half to even. Here each float32 is a 24-bit
mantissa and an exponent, every intermediate stays below 2**30 (guard,
round and sticky bits), so it allocates nothing on any port. Tested bit for
bit against torch (tests/test_cortex_m_ops.py).
"""

from mpy_et.port import const

_TOP = const(0x1000000)  # 2**24
_LOW = const(0x800000)  # 2**23


def window_average(xd, base, xsh, xsw, h, w, iy0, ix0, kh, kw, dh, dw, zp, tm, te, sm, se, box):
    """round_half_even(fl(fl(fl_sum / n) / scale)) as an int (before + zp);
    tm/te: mantissa (signed) and exponent of each term, indexed by x - zp + 255;
    (sm, se) the scale; box: a 2-item list the roundings leave their result in."""
    m = 0  # running sum: signed mantissa, exponent
    e = 0
    n = 0
    for ky in range(kh):
        iy = iy0 + ky * dh
        if 0 <= iy < h:
            for kx in range(kw):
                ix = ix0 + kx * dw
                if 0 <= ix < w:
                    n += 1
                    t = xd[base + iy * xsh + ix * xsw] - zp + 255
                    b = tm[t]
                    f = te[t]
                    if b == 0:
                        continue
                    if m == 0:
                        m = b
                        e = f
                        continue
                    # align to the smaller exponent if within 5 bits (exact), else keep 3 guard bits + sticky
                    if e < f:
                        m, b = b, m
                        e, f = f, e
                    d = e - f  # m has the larger exponent
                    if d <= 5:
                        s = (m << d) + b
                        ex = f
                        sticky = 0
                    else:
                        sh = d - 3
                        ab = -b if b < 0 else b
                        q = ab >> sh if sh < 30 else 0
                        sticky = 1 if (q << sh) != ab or (sh >= 30 and ab) else 0
                        q |= sticky
                        s = (m << 3) + (q if b > 0 else -q)
                        ex = e - 3
                        sticky = 0
                    if s == 0:
                        m = 0
                        e = 0
                        continue
                    neg = s < 0
                    _round_sticky(-s if neg else s, ex, sticky, box)
                    m = -box[0] if neg else box[0]
                    e = box[1]
    if m == 0:
        return 0
    neg = m < 0
    a = -m if neg else m
    # fl(sum / n): quotient with at least 27 bits and a sticky bit
    q1 = a // n
    r = a - q1 * n
    c = 0
    while (q1 >> (26 - c)) == 0 and c < 26:
        c += 1
    q = q1 << c
    if c:
        r <<= c
        q2 = r // n
        r -= q2 * n
        q |= q2
    _round_sticky(q, e - c, r != 0, box)
    a = box[0]
    ea = box[1]
    # fl(avg / scale): A / S in (1/2, 2), 30 bits by long division (remainders < 2**24, shifted 5 bits a step)
    q = a // sm
    r = a - q * sm
    for _ in range(5):
        r <<= 5
        d = r // sm
        r -= d * sm
        q = (q << 5) | d
    _round_sticky(q, ea - se - 25, r != 0, box)
    b = box[0]
    eb = box[1]
    # round half to even to an int
    if eb >= 0:
        v = b << eb if eb < 6 else 1 << 30
    elif eb < -25:
        v = 0
    else:
        k = -eb
        v = b >> k
        rem = b - (v << k)
        half = 1 << (k - 1)
        if rem > half or (rem == half and v & 1):
            v += 1
    return -v if neg else v


def _round_sticky(a, e, sticky, box):
    """a * 2**e (+ something below a's last bit when sticky) rounded to 24 bits,
    nearest even, into box (mantissa in [2**23, 2**24), exponent)."""
    while a < _LOW:
        a <<= 1
        e -= 1
    k = 0
    while a >> k >= _TOP:
        k += 1
    if k:
        q = a >> k
        r = a - (q << k)
        half = 1 << (k - 1)
        if r > half or (r == half and (sticky or q & 1)):
            q += 1
        a = q
        e += k
        if a >= _TOP:
            a >>= 1
            e += 1
    box[0] = a
    box[1] = e

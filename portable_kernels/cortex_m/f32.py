"""float32 arithmetic in exact integers (load time, and steps that cannot avoid floats).

ExecuTorch's reference computes some cortex_m:: operators in torch float32
(quantize, dequantize, div): every result there is the exact value rounded
once to float32 (to nearest, ties to even). Here a float32 is a pair (m, e),
value m * 2**e with |m| < 2**24, so the same roundings come out bit for bit on
every port, whatever its own floats are (doubles, float32, CircuitPython's
30-bit floats). Uses Python ints beyond 2**30: allocates on 32-bit ports.
"""

import struct


def _bits(a):
    """Bit length of a >= 0 (MicroPython ints have no bit_length)."""
    n = 0
    while a >> (n + 16):
        n += 16
    while a >> n:
        n += 1
    return n


def of_float(v):
    """The float32 nearest a port float (struct rounds doubles to float32)."""
    return decode(struct.unpack("<I", struct.pack("<f", v))[0])


def decode(bits):
    """float32 bits -> (m, e); +-inf -> (+-1, 1000); NaN -> None."""
    e = (bits >> 23) & 0xFF
    m = bits & 0x7FFFFF
    s = -1 if bits >> 31 else 1
    if e == 0xFF:
        return None if m else (s, 1000)
    if e:
        m |= 0x800000
    else:
        e = 1
    return (s * m, e - 150)


def encode(f):
    """(m, e) of a float32 (as round() gives) -> its bits."""
    m, e = f
    s = 0x80000000 if m < 0 else 0
    a = -m if m < 0 else m
    if e >= 1000:
        return s | 0x7F800000
    if a == 0:
        return s
    while a >= 0x1000000:  # round_f32 can carry into a 25th bit (its low bit is 0)
        a >>= 1
        e += 1
    while a < 0x800000 and e > -149:
        a <<= 1
        e -= 1
    if a < 0x800000:  # denormal
        return s | a
    return s | ((e + 150) << 23) | (a & 0x7FFFFF)


def round_f32(m, e):
    """The float32 nearest m * 2**e (ties to even) as (m', e')."""
    if m == 0:
        return (0, 0)
    s = -1 if m < 0 else 1
    a = m * s
    n = _bits(a)
    shift = n - 24
    if e + shift < -149:
        shift = -149 - e
    if shift > 0:
        q = a >> shift
        r = a - (q << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        a = q
        e += shift
    if e + _bits(a) > 128:
        return (s, 1000)
    return (s * a, e)


def mul(x, y):
    """float32 product, rounded once."""
    if x[1] >= 1000 or y[1] >= 1000:
        return (x[0] * y[0], 1000) if x[0] and y[0] else (0, 0)
    return round_f32(x[0] * y[0], x[1] + y[1])


def div(x, y):
    """float32 quotient x / y (y nonzero, finite), rounded once."""
    if x[0] == 0:
        return (0, 0)
    if x[1] >= 1000:
        return (x[0] * (1 if y[0] > 0 else -1), 1000)
    a = (-x[0] if x[0] < 0 else x[0]) << 60  # 24-bit divisor: 60 extra bits leave > 30 of quotient
    b = -y[0] if y[0] < 0 else y[0]
    q = a // b
    m = (q << 1) | (1 if q * b != a else 0)  # a sticky bit below the quotient keeps ties honest
    return round_f32(m if (x[0] < 0) == (y[0] < 0) else -m, x[1] - y[1] - 61)


def round_int(x):
    """torch.round (half to even) of a float32 as an int; inf -> +-2**40."""
    m, e = x
    if e >= 1000:
        return (1 << 40) * m
    if e >= 0:
        return m << e
    if e < -30:
        return 0 if m == 0 or -e > _bits(-m if m < 0 else m) else _rnd(m, -e)
    return _rnd(m, -e)


def _rnd(m, k):
    q = m >> k
    r = m - (q << k)
    half = 1 << (k - 1)
    if r > half or (r == half and q & 1):
        q += 1
    return q


def add(x, y):
    """float32 sum x + y (finite), rounded once. A term more than 64 bits
    below the other only sets a sticky bit (the same rounding, fewer digits)."""
    (a, ea), (b, eb) = x, y
    if a == 0:
        return y if b else (0, 0)
    if b == 0:
        return x
    if ea < eb:
        a, ea, b, eb = b, eb, a, ea
    if ea - eb > 64:
        return round_f32((a << 66) + (1 if b > 0 else -1), ea - 66)
    return round_f32((a << (ea - eb)) + b, eb)


def fma(x, y, z):
    """float32 x * y + z with one rounding (an FMA instruction)."""
    return add((x[0] * y[0], x[1] + y[1]), z)

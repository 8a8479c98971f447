"""CMSIS-NN's requantization (arm_nn_requantize), exactly, in small integers.

    out = rounding_divide_by_pot(doubling_high_mult(acc << left, M), right)

with left = max(shift, 0), right = max(-shift, 0), doubling_high_mult(v, M) =
floor((v * M + 2**30) / 2**31) and the rounding divide rounding halves away
from zero (ExecuTorch's requantize_cmsis). The product needs 62 bits; here it
is formed from 15-bit pieces so every intermediate stays within +-2**30 (a
small int on 32-bit ports: the step allocates nothing) as long as
|acc << left| < 2**30. Beyond that the exact wide path runs (Python ints,
int64 wrap like ExecuTorch's reference): correct, but it allocates on 32-bit
ports.

`params(M, shift)` is done at load: it splits M into (a2, a1, a0) =
(M >> 30, M >> 15 & 0x7fff, M & 0x7fff), kept with left, right and M in an
int32 array (6 per channel; channel_params for per-channel tensors).
"""

from array import array

from mpy_et.port import const
from portable_kernels.util import checks

_SMALL = const(0x40000000)


def params(multiplier, shift, what):
    """The load-time form of one (multiplier, shift) pair: int32 [6] for requantize()."""
    return _fill(array("i", bytes(24)), 0, multiplier, shift, what)


def _fill(rq, i, multiplier, shift, what):
    if not isinstance(multiplier, int) or not isinstance(shift, int) or isinstance(multiplier, bool):
        checks.fail("%s: requantization multiplier and shift must be ints, got %r, %r" % (what, multiplier, shift))
    if not 0 <= multiplier <= 0x7FFFFFFF:
        checks.fail("%s: requantization multiplier %d is outside [0, 2**31)" % (what, multiplier))
    if not -63 <= shift <= 31:
        checks.fail("%s: requantization shift %d is outside [-63, 31]" % (what, shift))
    b = 6 * i
    rq[b] = multiplier >> 30
    rq[b + 1] = (multiplier >> 15) & 0x7FFF
    rq[b + 2] = multiplier & 0x7FFF
    rq[b + 3] = shift if shift > 0 else 0
    rq[b + 4] = -shift if shift < 0 else 0
    rq[b + 5] = multiplier
    return rq


def requantize(v, rq, i=0):
    """arm_nn_requantize(v, M, shift) for one int (v: an int32 accumulator) with
    channel i's parameters in rq (params / channel_params). Does not allocate
    while |v << left| < 2**30."""
    b = 6 * i
    left = rq[b + 3]
    if left:
        v <<= left
    if v >= _SMALL or v < -_SMALL:
        return _wide(v, rq[b + 5], rq[b + 4])
    a1 = rq[b + 1]
    a0 = rq[b + 2]
    v1 = v >> 15
    v0 = v & 0x7FFF
    x = v1 * a0
    q = (x >> 15) + (((x & 0x7FFF) + v0 * a1 + ((v0 * a0) >> 15)) >> 15)
    p = v1 * a1
    # floor((v * M + 2**30) / 2**31) = (floor(v * M / 2**30) + 1) >> 1, halves summed apart
    if rq[b]:
        r = (v >> 1) + (p >> 1) + (((v & 1) + (p & 1) + q + 1) >> 1)
    else:
        r = (p >> 1) + (((p & 1) + q + 1) >> 1)
    right = rq[b + 4]
    if right:
        if right > 30:  # |r| < 2**30 <= 2**(right - 1): rounds to 0
            return 0
        mask = (1 << right) - 1
        rem = r & mask
        r >>= right
        if rem > (mask >> 1) + (1 if r < 0 else 0):
            r += 1
    return r


def _wide(v, m, right):
    """The same with Python ints (values of 2**30 and beyond), wrapping to
    int64 as ExecuTorch's reference does, then to int32."""
    p = _wrap(v * m + (1 << 30), 64) >> 31
    if right:
        mask = (1 << right) - 1
        rem = p & mask
        p >>= right
        if rem > (mask >> 1) + (1 if p < 0 else 0):
            p += 1
    return _wrap(p, 32)


def _wrap(v, bits):
    v &= (1 << bits) - 1
    if v >> (bits - 1):
        v -= 1 << bits
    return v


def channel_params(mults, shifts, n, what):
    """Per-channel (multiplier, shift) tensors (int32 [n]) or int lists -> int32 [n * 6]
    (a2, a1, a0, left, right, M per channel): read by requantize() and the viper paths."""
    md, mn = (mults.data, mults.numel) if hasattr(mults, "data") else (mults, len(mults))
    sd, sn = (shifts.data, shifts.numel) if hasattr(shifts, "data") else (shifts, len(shifts))
    if mn < n or sn < n:
        checks.fail("%s: %d requantization multipliers / %d shifts for %d channels" % (what, mn, sn, n))
    rq = array("i", bytes(24 * n))
    for i in range(n):
        _fill(rq, i, md[i], sd[i], what)
    return rq

"""int8 helpers shared by the mpy_et_quant kernels (portable_kernels/q_*.py).

Requantization, exactly as host_tools/quantize/ref.py defines it:
    out = clamp(zp + floor((clamp(acc, -L, L) * M + 2**(s-1)) / 2**s), lo, hi)
evaluated so that no intermediate reaches 2**30 (small ints on 32-bit ports:
nothing allocates): s <= 21 directly, s >= 22 with acc split in 15-bit halves.

HAS_VIPER: the port has a native emitter (portable_kernels/util/emitters.py);
only then is a viper module (q_*_viper.py) imported.
"""

from mpy_et import dtypes
from portable_kernels.util import checks
from portable_kernels.util.emitters import HAS_NATIVE as HAS_VIPER

# Kernels loaded while this is False take the pure-Python reference path
# (tests switch it to compare both on one port).
use_viper = HAS_VIPER
SPLIT_FROM = 22


def requant(acc, m, s, lim):
    """floor((clamp(acc, -lim, lim) * m + 2**(s-1)) / 2**s). Does not allocate."""
    if acc > lim:
        acc = lim
    elif acc < -lim:
        acc = -lim
    if s < SPLIT_FROM:
        return (acc * m + (1 << (s - 1))) >> s
    return ((acc >> 15) * m + (((acc & 0x7FFF) * m) >> 15) + (1 << (s - 16))) >> (s - 15)


def single_product(acc_lo, acc_hi, m, s, lim, zo, lo, hi):
    """M' = M << (32 - s) where clamp(zo + requant(acc), lo, hi) for every acc in
    acc_lo..acc_hi is max(lo, ssat8(high word of (acc * M' + 2**31 + zo * 2**32)))
    (the 64-bit Thumb-2 steps, native/q_add_thumb2.py), else 0: s <= 32, M' < 2**31,
    hi 127, and clamping acc at the limit changes nothing (acc never reaches it, or
    the output there saturates already; the requantization is monotone). Load time."""
    if hi != 127 or s > 32 or m << (32 - s) >= 1 << 31:
        return 0
    half = 1 << (s - 1)
    if (acc_lo < -lim or acc_hi > lim) and ((lim * m + half) >> s < hi - zo or (half - lim * m) >> s > lo - zo):
        return 0
    return m << (32 - s)


def check_int8(t, what):
    checks.is_tensor(t, what)
    checks.dtype_in(t, (dtypes.CHAR,), what)


def scalar_params(m, s, lim, what):
    """Validate one (multiplier, shift, limit) triple (load time)."""
    for v, name in ((m, "multiplier"), (s, "shift"), (lim, "limit")):
        if not isinstance(v, int) or isinstance(v, bool):
            checks.fail("%s: %s must be an int, got %r" % (what, name, v))
    # a multiplier above 2**15 only with the direct evaluation (|acc * M| stays < 2**30 by the limit);
    # channel_table checks the same ranges inline
    if not (
        0 <= m <= (1 << 15 if s >= SPLIT_FROM else 1 << 22)
        and 15 <= s <= 44
        and 0 <= lim <= 1 << 29
        and (s >= SPLIT_FROM or lim * m < 1 << 30)
    ):
        checks.fail("%s: requantization (multiplier %d, shift %d, limit %d) outside its 32-bit-safe ranges" % (what, m, s, lim))


def zero_point(v, what):
    if not isinstance(v, int) or isinstance(v, bool) or not -128 <= v <= 127:
        checks.fail("%s must be an int in -128..127, got %r" % (what, v))
    return v


def channel_table(t, n, what):
    """Check an int32 [n, 8] table of (C + 2**29, M, s, L, C, -L, s', R) per
    output channel (host_tools/quantize/pack.py; load time: the kernels read
    it in place, the Arm requantization the last four, the others the first
    four, so they must agree)."""
    checks.is_tensor(t, what + " channels")
    checks.dtype_in(t, (dtypes.INT,), what + " channels")
    if tuple(t.sizes) != (n, 8):
        checks.fail(
            "%s: channels must be int32[%d, 8] (folded bias, multiplier, shift, limit and their Arm forms), got %s"
            % (what, n, checks.shape_str(t))
        )
    d = t.data
    # Allocates nothing unless a check fails: scalar_params' ranges inline (its
    # message string and tuples per channel made 60 KB of garbage for a layer
    # of 256 channels, which fragmented the 224 KB board's heap at load).
    for c in range(n):
        e = 8 * c
        if not 0 <= d[e] < 1 << 30:
            checks.fail("%s channel %d: folded bias %d outside 0..2**30 (stored with a 2**29 offset)" % (what, c, d[e]))
        m, s, lim = d[e + 1], d[e + 2], d[e + 3]
        if not (
            0 <= m <= (1 << 15 if s >= SPLIT_FROM else 1 << 22)
            and 15 <= s <= 44
            and 0 <= lim <= 1 << 29
            and (s >= SPLIT_FROM or lim * m < 1 << 30)
        ):
            scalar_params(m, s, lim, "%s channel %d" % (what, c))  # raises, naming the channel
        s2 = s - 15 if s >= SPLIT_FROM else s
        if d[e + 4] != d[e] - (1 << 29) or d[e + 5] != -lim or d[e + 6] != s2 or d[e + 7] != 1 << (s2 - 1):
            checks.fail("%s channel %d: the Arm columns disagree with (bias, multiplier, shift, limit)" % (what, c))


def channel_params(requant_t, n, what):
    """Check an int32 [n, 3] tensor of (M, s, L) per channel (load time); the
    steps read it where it lies."""
    checks.is_tensor(requant_t, what + " requant")
    checks.dtype_in(requant_t, (dtypes.INT,), what + " requant")
    if tuple(requant_t.sizes) != (n, 3):
        checks.fail(
            "%s: requant must be int32[%d, 3] (multiplier, shift, limit per channel), got %s" % (what, n, checks.shape_str(requant_t))
        )
    d = requant_t.data
    for c in range(n):
        scalar_params(d[3 * c], d[3 * c + 1], d[3 * c + 2], "%s channel %d" % (what, c))

"""Float32 relu and clamp in viper, on the bits: no float object, no
allocation, on every port with a native emitter (32-bit words suffice).

A float32 bit pattern b maps to the signed key (b & 0x7FFFFFFF), negated when
the sign bit is set: keys order as the values do, and -0.0 and +0.0 share
key 0, so -0.0 stays -0.0 (as torch's relu and clamp keep it). NaN (the
magnitude above inf's bits) passes through. The bounds are float32 values
(the caller checks that they are exactly representable and not NaN).
"""

import micropython


@micropython.viper
def relu(src: ptr32, dst: ptr32, n: int):  # noqa: F821
    low31 = 1
    low31 = (low31 << 31) - 1  # computed: a literal this large is an object on 32-bit targets
    inf_bits = 255
    inf_bits = inf_bits << 23
    for i in range(n):
        b = src[i]
        m = b & low31
        if (b >> 31) & 1 and m != 0 and m <= inf_bits:
            b = 0
        dst[i] = b


@micropython.viper
def clamp(src: ptr32, dst: ptr32, n: int, ctlobj):  # noqa: F821
    """ctl words: has_lo, lo_bits, has_hi, hi_bits. Applied as the bytecode
    step does: raise to lo, then lower to hi. The keys are made here: a
    word read back is zero-extended on 64-bit ports, so a stored negative
    key would not compare as one."""
    ctl = ptr32(ctlobj)  # noqa: F821
    has_lo = ctl[0]
    lo_bits = ctl[1]
    has_hi = ctl[2]
    hi_bits = ctl[3]
    low31 = 1
    low31 = (low31 << 31) - 1
    inf_bits = 255
    inf_bits = inf_bits << 23
    lo_key = lo_bits & low31
    if (lo_bits >> 31) & 1:
        lo_key = 0 - lo_key
    hi_key = hi_bits & low31
    if (hi_bits >> 31) & 1:
        hi_key = 0 - hi_key
    for i in range(n):
        b = src[i]
        m = b & low31
        if m <= inf_bits:  # not NaN
            k = m
            if (b >> 31) & 1:
                k = 0 - m
            if has_lo and k < lo_key:
                b = lo_bits
                k = lo_key
            if has_hi and k > hi_key:
                b = hi_bits
        dst[i] = b

"""Float32 amax / amin in viper on the bits (f32_clamp_viper's ordering
keys): no float object, no allocation, on every port with a native emitter
(32-bit words suffice). As the bytecode steps: a NaN wins (the first one met,
its bits kept), and of equal keys (-0.0 and +0.0) the first stays.
"""

import micropython


@micropython.viper
def extreme(x: ptr32, o: ptr32, n: int, koobj, roobj, nr: int, sign: int):  # noqa: F821
    """o[k] = the largest (sign 1) or smallest (sign -1) of x[ko[k] + ro[i]]
    for i < nr (ko: n kept offsets, ro: nr reduced offsets, ro[0] == 0)."""
    ko = ptr32(koobj)  # noqa: F821
    ro = ptr32(roobj)  # noqa: F821
    low31 = 1
    low31 = (low31 << 31) - 1  # computed: a literal this large is an object on 32-bit targets
    inf_bits = 255
    inf_bits = inf_bits << 23
    for k in range(n):
        b = ko[k]
        best = x[b]
        m = best & low31
        if m <= inf_bits:  # not NaN
            bk = m
            if (best >> 31) & 1:
                bk = 0 - m
            bk = bk * sign
            for i in range(1, nr):
                v = x[b + ro[i]]
                m = v & low31
                if m > inf_bits:
                    best = v
                    break
                kv = m
                if (v >> 31) & 1:
                    kv = 0 - m
                kv = kv * sign
                if kv > bk:
                    best = v
                    bk = kv
        o[k] = best

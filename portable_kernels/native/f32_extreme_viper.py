"""Float32 amax / amin in viper on the bits (f32_clamp_viper's ordering
keys): no float object, no allocation, on every port with a native emitter
(32-bit words suffice). As the bytecode steps: a NaN wins (the first one met,
its bits kept), and of equal keys (-0.0 and +0.0) the first stays.
"""

import micropython


@micropython.viper
def extreme(x: ptr32, o: ptr32, wobj, sign: int):  # noqa: F821
    """o[k] = the largest (sign 1) or smallest (sign -1) of the reduced
    elements of the k-th kept position (wobj: reduce_extreme.extreme_walk's
    int32 array: counts and strides, then the kept and reduced outer
    offsets). The reduced elements are met in index order, the first starts."""
    w = ptr32(wobj)  # noqa: F821
    nko = w[0]
    nki = w[1]
    ski = w[2]
    nro = w[3]
    nri = w[4]
    sri = w[5]
    ro = 6 + nko
    low31 = 1
    low31 = (low31 << 31) - 1  # computed: a literal this large is an object on 32-bit targets
    inf_bits = 255
    inf_bits = inf_bits << 23
    k = 0
    for a in range(nko):
        b = w[6 + a]
        for _j in range(nki):
            best = x[b]
            m = best & low31
            if m <= inf_bits:  # not NaN
                bk = m
                if (best >> 31) & 1:
                    bk = 0 - m
                bk = bk * sign
                skip = 1  # the first element, already taken
                nan = 0
                for ra in range(nro):
                    r = b + w[ro + ra]
                    for _rj in range(nri):
                        if skip:
                            skip = 0
                        else:
                            v = x[r]
                            m = v & low31
                            if m > inf_bits:
                                best = v
                                nan = 1
                                break
                            kv = m
                            if (v >> 31) & 1:
                                kv = 0 - m
                            kv = kv * sign
                            if kv > bk:
                                best = v
                                bk = kv
                        r += sri
                    if nan:
                        break
            o[k] = best
            k += 1
            b += ski

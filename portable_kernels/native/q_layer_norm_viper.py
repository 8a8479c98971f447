"""Viper step of mpy_et_quant::layer_norm (quantized/op_layer_norm.py), bit-identical
with its pure-Python step: the same integers in the same order (row sums,
the largest j, Newton's integer square root from 2**15, floor division,
q_requant.requant's evaluation). Imported only where the port has a native
emitter (q_requant.use_viper). Parameters sit in int32 arrays as
non-negative values (ptr32 loads zero-extend on 64-bit ports). Does not
allocate.
"""

from array import array

import micropython

from mpy_et import noalloc

_OFF = 1 << 29  # beta offsets are stored + 2**29


def prepare(x, out, rows, n, zx, zo, et, signs, bias, ms, ss, ls):
    p = array("i", [rows, n, zx + 128, zo + 128, x.offset, out.offset] + list(et))
    cp = array("i", [0] * (5 * n))
    for c in range(n):
        cp[5 * c] = signs[c] + 1
        cp[5 * c + 1] = bias[c] + _OFF
        cp[5 * c + 2] = ms[c]
        cp[5 * c + 3] = ss[c]
        cp[5 * c + 4] = ls[c]
    return _step, (x.buf, out.buf, p, cp)


def _step(ctx):
    _layer_norm(ctx[0], ctx[1], ctx[2], ctx[3])


@micropython.viper
def _layer_norm(x: ptr8, o: ptr8, p: ptr32, cp: ptr32):  # noqa: F821 (viper types)
    rows = int(p[0])
    n = int(p[1])
    zx = int(p[2]) - 128
    zo = int(p[3]) - 128
    xi = int(p[4])
    oi = int(p[5])
    top = 0x3FFFFFFF
    for _row in range(rows):
        s1 = 0
        s2 = 0
        for i in range(xi, xi + n):
            d = (int(x[i]) ^ 0x80) - 128 - zx
            s1 += d
            s2 += d * d
        big_d = n * s2 - s1 * s1
        j = 0
        while j < 15 and big_d <= ((top - int(p[7 + j])) >> (2 * j + 2)):
            j += 1
        dz = (big_d << (2 * j)) + int(p[6 + j])
        r = 1
        if dz > 1:
            r = 32768
            while True:
                y = (r + dz // r) >> 1
                if y >= r:
                    break
                r = y
        ci = 0
        for c in range(n):
            t = n * ((int(x[xi + c]) ^ 0x80) - 128 - zx) - s1
            u = ((t << j) << 11) // r
            acc = (int(cp[ci]) - 1) * u + int(cp[ci + 1]) - 0x20000000
            m = int(cp[ci + 2])
            s = int(cp[ci + 3])
            lim = int(cp[ci + 4])
            ci += 5
            if acc > lim:
                acc = lim
            elif acc < 0 - lim:
                acc = 0 - lim
            if s < 22:
                q = zo + ((acc * m + (1 << (s - 1))) >> s)
            else:
                q = zo + (((acc >> 15) * m + (((acc & 0x7FFF) * m) >> 15) + (1 << (s - 16))) >> (s - 15))
            if q < -128:
                q = -128
            elif q > 127:
                q = 127
            o[oi + c] = q & 0xFF
        xi += n
        oi += n


noalloc.mark(_step)

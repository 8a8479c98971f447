"""Native steps of mpy_et_quant::layer_norm (quantized/op_layer_norm.py), bit-identical
with its pure-Python step: the same integers in the same order (row sums,
the largest j, Newton's integer square root from 2**15, floor division,
q_requant.requant's evaluation). Imported only where the port has a native
emitter (q_requant.use_viper).

Two passes: _stats (viper) writes each row's (S1, j + F, r) into the shared
"ln" scratch row (S1 + 2**16); the channels are then normalized by _apply (viper) or, on
Thumb-2 Arm, by native/q_layer_norm_thumb.py (SDIV for the floor division a
viper `//` makes a runtime call for: ~175 instructions per value on a
Cortex-M3 against ~60). The channel constants are read where they lie: (M,
s, L) as non-negative int32 (ptr32 loads zero-extend on 64-bit ports), the
signed (sign, bias) as 16-bit halves, the same on 32- and 64-bit words. Does
not allocate.
"""

from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.util import scratch
from portable_kernels.util.emitters import THUMB2


def prepare(x, out, rows, n, zx, zo, et, requant_t, offsets):
    """(step, ctx); the channel constants (requant int32 [n, 3]: M, s, L;
    offsets int32 [n, 2]: sign, bias) are read where they lie."""
    p = array("i", [rows, n, zx + 128, zo + 128, x.offset, out.offset] + list(et) + [requant_t.offset, offsets.offset])
    st = scratch.rows("ln", 3 * rows)  # (S1, j + F, r) per row, shared by every layer norm
    if THUMB2:
        from portable_kernels.native import q_layer_norm_thumb

        return _step_thumb, (x.buf, p, st, q_layer_norm_thumb.prepare(x, out, rows, n, zx, zo, requant_t, offsets, st))
    return _step, (x.buf, out.buf, p, requant_t.buf, offsets.buf, st)


def _step(ctx):
    _stats(ctx[0], ctx[2], ctx[5])
    _apply(ctx[0], ctx[1], ctx[2], ctx[3], ctx[4], ctx[5])


def _step_thumb(ctx):
    _stats(ctx[0], ctx[1], ctx[2])
    apply = ctx[3]
    apply[0](apply[1])


@micropython.viper
def _stats(x: ptr8, p: ptr32, stobj):  # noqa: F821 (viper types)
    st = ptr32(stobj)  # noqa: F821 (its address at every call: the shared scratch may have grown)
    rows = int(p[0])
    n = int(p[1])
    zx = int(p[2]) - 128
    xi = int(p[4])
    top = 0x3FFFFFFF
    k = 0
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
        st[k] = s1 + 65536  # non-negative (|S1| <= 128 * 255): ptr32 loads zero-extend on 64-bit ports
        st[k + 1] = j + 11  # + op_layer_norm.F
        st[k + 2] = r
        k += 3
        xi += n


@micropython.viper
def _apply(x: ptr8, o: ptr8, p: ptr32, rqb: ptr8, ofb: ptr8, stobj):  # noqa: F821 (viper types)
    st = ptr32(stobj)  # noqa: F821
    rows = int(p[0])
    n = int(p[1])
    zx = int(p[2]) - 128
    zo = int(p[3]) - 128
    xi = int(p[4])
    oi = int(p[5])
    rq = ptr32(int(rqb) + int(p[22]))  # noqa: F821  (M, s, L) per channel: non-negative
    of = ptr16(int(ofb) + int(p[23]))  # noqa: F821  (sign, bias) per channel as 16-bit halves (little-endian)
    k = 0
    for _row in range(rows):
        s1 = int(st[k]) - 65536
        sh = int(st[k + 1])
        r = int(st[k + 2])
        k += 3
        for c in range(n):
            t = n * ((int(x[xi + c]) ^ 0x80) - 128 - zx) - s1
            u = (t << sh) // r
            # sign is 1 or -1 (its low half 1 or 0xFFFF); bias's high half is signed, |bias| < 2**29
            hi = int(of[4 * c + 3])
            if hi >= 0x8000:
                hi -= 0x10000
            acc = (hi << 16) + int(of[4 * c + 2])
            if int(of[4 * c]) == 1:
                acc += u
            else:
                acc -= u
            m = int(rq[3 * c])
            s = int(rq[3 * c + 1])
            lim = int(rq[3 * c + 2])
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


noalloc.mark(_step, _step_thumb)

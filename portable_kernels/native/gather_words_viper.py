"""Viper step of a strided gather of 4-byte elements (float32 / int32
permutes, transposes, slices, flips: attention's head reshuffles in a float
transformer). Imported only where the port has a native emitter
(portable_kernels/util/emitters.py).

On a 32-bit port the bytecode steps move a float32 either boxed or as an
int32, which is a heap-allocated big int beyond +-2**30 (most float bit
patterns); here words move as words. The walk is loops.rows_plan's,
written once into an int array at load (3 words per outer dim, no list of
row starts): rows of n words, x stepped by `step` inside a row, an
odometer over the outer dims between rows. Does not allocate.
"""

from array import array

import micropython

from mpy_et import noalloc


def prepare(x, out, plan, n, step, first=0):
    """(step, ctx) filling out (contiguous) from x's words at element
    first + the plan's offsets (loops.rows_plan over element strides: plan,
    n, step), or None where a tensor's offset is not word-aligned."""
    if (x.offset | out.offset) & 3:
        return None
    nd, sizes, sa, _, back_a, _, _, nrows, _ = plan
    head = [nd, nrows, n, step, x.offset // 4 + first, out.offset // 4]
    return _step, (x.buf, out.buf, array("i", head + list(sizes) + list(sa) + list(back_a) + [0] * nd))


def _step(ctx):
    _gather(ctx[0], ctx[1], ctx[2])


@micropython.viper
def _gather(x: ptr32, o: ptr32, p: ptr32):  # noqa: F821 (viper types)
    h = 1
    h = h << 31  # (v ^ h) - h: an int32 read back signed on 64-bit ports too
    nd = int(p[0])
    nrows = int(p[1])
    n = int(p[2])
    step = (int(p[3]) ^ h) - h
    ia = int(p[4])
    oi = int(p[5])
    sz = 6  # p[sz + d]: outer sizes, then strides, back steps, the odometer
    sa = sz + nd
    bk = sa + nd
    ix = bk + nd
    for d in range(nd):
        p[ix + d] = 0
    for _r in range(nrows):
        j = ia
        e = oi + n
        while oi < e:
            o[oi] = x[j]
            j += step
            oi += 1
        d = nd - 1
        while d >= 0:
            c = int(p[ix + d]) + 1
            if c < int(p[sz + d]):
                p[ix + d] = c
                ia += (int(p[sa + d]) ^ h) - h
                break
            p[ix + d] = 0
            ia -= (int(p[bk + d]) ^ h) - h
            d -= 1


noalloc.mark(_step)

"""Viper steps of nearest upsampling: mpy_et_quant::upsample_nearest2d
(quantized/op_upsample_nearest2d.py: int8, bytes) and aten::upsample_nearest2d
on 4-byte elements (op_upsample_nearest2d.py: float32 / int32, words),
imported only where the port has a native emitter.

Elements are copied as they are (bytes: same scale; words: raw bits, so a
float is never boxed). An output row whose source row
is the previous one's is a copy of the output row just written; a row of a
2x-wide output writes each source byte twice; other rows go through the
column index table. Does not allocate.
"""

from array import array

import micropython

from mpy_et import noalloc


def prepare(x, out, planes, h, w, oh, ow, rows, cols, size=1):
    """rows, cols: torch's source index of every output row / column; size:
    bytes per element, 1 or 4 (4: both tensors' offsets word-aligned)."""
    double = 1 if ow == 2 * w and all(cols[i] == i >> 1 for i in range(ow)) else 0
    g = array("i", [planes, h, w, oh, ow, x.offset // size, out.offset // size, double])
    return _step if size == 1 else _step32, (x.buf, out.buf, array("i", rows), array("i", cols), g)


def _step(ctx):
    _up(ctx[0], ctx[1], ctx[2], ctx[3], ctx[4])


def _step32(ctx):
    _up32(ctx[0], ctx[1], ctx[2], ctx[3], ctx[4])


@micropython.viper
def _up(x: ptr8, o: ptr8, rows: ptr32, cols: ptr32, g: ptr32):  # noqa: F821 (viper types)
    planes = g[0]
    h = g[1]
    w = g[2]
    oh = g[3]
    ow = g[4]
    double = g[7]
    oi = g[6]
    pb = g[5]
    for _p in range(planes):
        prev = -1
        for r in range(oh):
            sr = int(rows[r])
            if sr == prev:
                src = oi - ow
                e = oi + ow
                while oi < e:
                    o[oi] = o[src]
                    oi += 1
                    src += 1
            elif double:
                s = pb + sr * w
                e = s + w
                while s < e:
                    v = x[s]
                    o[oi] = v
                    o[oi + 1] = v
                    oi += 2
                    s += 1
            else:
                rb = pb + sr * w
                for c in range(ow):
                    o[oi] = x[rb + int(cols[c])]
                    oi += 1
            prev = sr
        pb += h * w


@micropython.viper
def _up32(x: ptr32, o: ptr32, rows: ptr32, cols: ptr32, g: ptr32):  # noqa: F821 (viper types)
    planes = g[0]
    h = g[1]
    w = g[2]
    oh = g[3]
    ow = g[4]
    double = g[7]
    oi = g[6]
    pb = g[5]
    for _p in range(planes):
        prev = -1
        for r in range(oh):
            sr = int(rows[r])
            if sr == prev:
                src = oi - ow
                e = oi + ow
                while oi < e:
                    o[oi] = o[src]
                    oi += 1
                    src += 1
            elif double:
                s = pb + sr * w
                e = s + w
                while s < e:
                    v = x[s]
                    o[oi] = v
                    o[oi + 1] = v
                    oi += 2
                    s += 1
            else:
                rb = pb + sr * w
                for c in range(ow):
                    o[oi] = x[rb + int(cols[c])]
                    oi += 1
            prev = sr
        pb += h * w


noalloc.mark(_step)
noalloc.mark(_step32)

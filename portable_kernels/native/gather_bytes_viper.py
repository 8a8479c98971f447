"""Viper step of a strided gather of 1-byte elements (int8 / uint8 / bool
permutes: attention's head reshuffles in an int8 transformer). Imported only
where the port has a native emitter (portable_kernels/util/emitters.py).

The plan is fixed at load: one source offset per output row (at most
MAX_ROWS of them, 4 bytes each), the row length and the source step; the
step copies out[r * n + k] = x[starts[r] + k * step]. It does not allocate.
"""

from array import array

import micropython

from mpy_et import noalloc

MAX_ROWS = 4096


def prepare(x, out, starts, n, step):
    """(step, ctx) or None when the plan has more rows than MAX_ROWS."""
    if len(starts) > MAX_ROWS:
        return None
    rows = array("i", [s + x.offset for s in starts])
    p = array("i", [len(starts), n, step, out.offset])
    return _step, (x.buf, out.buf, rows, p)


def _step(ctx):
    _gather(ctx[0], ctx[1], ctx[2], ctx[3])


@micropython.viper
def _gather(x: ptr8, o: ptr8, rows: ptr32, p: ptr32):  # noqa: F821 (viper types)
    nrows = int(p[0])
    n = int(p[1])
    step = int(p[2])
    oi = int(p[3])
    for r in range(nrows):
        ia = int(rows[r])
        end = oi + n
        while oi < end:
            o[oi] = x[ia]
            ia += step
            oi += 1


noalloc.mark(_step)

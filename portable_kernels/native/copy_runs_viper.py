"""Viper step of util/runs.copy_step (the byte runs of slice_scatter,
constant_pad_nd and slice_copy: bands of a patched stage,
host_tools/planning/patch.py). Imported only where the port has a native
emitter (portable_kernels/util/emitters.py).

The plan is fixed at load in one array of ints: the run count, the fill
count, then (out offset, x offset, bytes) per run and (out offset, bytes)
per fill, offsets into the tensors' whole buffers. That is 12 bytes a run
where the reference keeps two memoryviews and two list slots (40 bytes on
a 32-bit board): a band's copies keep a few hundred bytes less each. Runs
whose addresses and length are multiples of 4 move as words, others as
bytes. It does not allocate.
"""

from array import array

import micropython

from mpy_et import noalloc


def prepare(x, out, runs, fills, pattern):
    """(step, ctx) copying runs [(out byte offset, x byte offset, bytes)] of
    x into out and setting fills [(out byte offset, bytes)] to the bytes of
    `pattern` (a bytearray at least as long as the longest fill, or None)."""
    plan = [len(runs), len(fills)]
    for b, a, n in runs:
        plan += (b + out.offset, a + x.offset, n)
    for b, n in fills:
        plan += (b + out.offset, n)
    return _step, (x.buf, out.buf, pattern or bytearray(1), array("i", plan))


def _step(ctx):
    _copy(ctx[0], ctx[1], ctx[2], ctx[3])


@micropython.viper
def _copy(x, o, pattern, p: ptr32):  # noqa: F821 (viper types)
    xb = ptr8(x)  # noqa: F821
    ob = ptr8(o)  # noqa: F821
    xw = ptr32(x)  # noqa: F821
    ow = ptr32(o)  # noqa: F821
    pb = ptr8(pattern)  # noqa: F821
    base = (int(xb) | int(ob)) & 3  # a buffer may be a view at any address (constants in a program)
    nruns = int(p[0])
    nfills = int(p[1])
    i = 2
    for _ in range(nruns):
        d = int(p[i])
        s = int(p[i + 1])
        n = int(p[i + 2])
        i += 3
        if ((d | s | n | base) & 3) == 0:  # word-aligned at both ends: words
            d >>= 2
            s >>= 2
            end = d + (n >> 2)
            while d < end:
                ow[d] = xw[s]
                d += 1
                s += 1
        else:
            end = d + n
            while d < end:
                ob[d] = xb[s]
                d += 1
                s += 1
    for _ in range(nfills):
        d = int(p[i])
        end = d + int(p[i + 1])
        i += 2
        k = 0
        while d < end:
            ob[d] = pb[k]
            d += 1
            k += 1


noalloc.mark(_step)

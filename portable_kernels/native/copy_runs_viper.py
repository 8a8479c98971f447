"""Viper step of util/runs.copy_step (the byte runs of slice_scatter,
constant_pad_nd and slice_copy: bands of a patched stage,
host_tools/planning/patch.py), and prepare_at's one run at a map loop's
counter (select_copy, et_copy_index). Imported only where the port has a native
emitter (portable_kernels/util/emitters.py).

The plan is fixed at load in one array of ints: the entry count, the fill
count, then per entry (out offset, x offset, bytes, runs, out step, x step):
`runs` runs of `bytes` bytes, each the previous one moved by the steps (the
rows of every channel of a band are one entry), and per fill (out offset,
bytes); offsets into the tensors' whole buffers. The reference keeps two
memoryviews and two list slots a run (40 bytes on a 32-bit board): a band's
copies keep a few hundred bytes less each. Runs whose addresses and length
are multiples of 4 move as words, others as bytes. It does not allocate.
"""

from array import array

import micropython

from mpy_et import noalloc

_NO_PATTERN = bytearray(1)  # what steps without fills pass (one object for all)


def prepare(x, out, runs, fills, pattern):
    """(step, ctx) copying runs [(out byte offset, x byte offset, bytes)] of
    x into out and setting fills [(out byte offset, bytes)] to the bytes of
    `pattern` (a bytearray at least as long as the longest fill, or None)."""
    entries = []
    for b, a, n in runs:
        e = entries[-1] if entries else None
        # steps >= 0 only: viper reads the array's words unsigned on a 64-bit port
        if e and e[2] == n and b >= e[0] and a >= e[1] and (e[3] == 1 or (b - e[0] == e[3] * e[4] and a - e[1] == e[3] * e[5])):
            if e[3] == 1:
                e[4], e[5] = b - e[0], a - e[1]
            e[3] += 1
        else:
            entries.append([b, a, n, 1, 0, 0])
    plan = [len(entries), len(fills)]
    for b, a, n, count, bstep, astep in entries:
        plan += (b + out.offset, a + x.offset, n, count, bstep, astep)
    for b, n in fills:
        plan += (b + out.offset, n)
    return _step, (x.buf, out.buf, pattern or _NO_PATTERN, array("i", plan))


def _step(ctx):
    _copy(ctx[0], ctx[1], ctx[2], ctx[3])


def prepare_at(x, out, nbytes, x_off, out_off, cell, x_step, out_step):
    """(step, ctx) copying nbytes of x at byte x_off + k * x_step into out at
    out_off + k * out_step, k = cell[0] when the step runs (a map loop's
    counter, mpy_et/loops.py: its range is checked at load)."""
    x_off += x.offset
    out_off += out.offset
    plan = array("i", (1, 0, out_off, x_off, nbytes, 1, 0, 0))
    return _step_at, (x.buf, out.buf, _NO_PATTERN, plan, cell, out_off, out_step, x_off, x_step)


def _step_at(ctx):
    p = ctx[3]
    k = ctx[4][0]
    p[2] = ctx[5] + k * ctx[6]
    p[3] = ctx[7] + k * ctx[8]
    _copy(ctx[0], ctx[1], ctx[2], p)


@micropython.viper
def _copy(x, o, pattern, p: ptr32):  # noqa: F821 (viper types)
    xb = ptr8(x)  # noqa: F821
    ob = ptr8(o)  # noqa: F821
    xw = ptr32(x)  # noqa: F821
    ow = ptr32(o)  # noqa: F821
    pb = ptr8(pattern)  # noqa: F821
    base = (int(xb) | int(ob)) & 3  # a buffer may be a view at any address (constants in a program)
    nentries = int(p[0])
    nfills = int(p[1])
    i = 2
    for _e in range(nentries):
        d0 = int(p[i])
        s0 = int(p[i + 1])
        n = int(p[i + 2])
        count = int(p[i + 3])
        dstep = int(p[i + 4])
        sstep = int(p[i + 5])
        i += 6
        words = ((d0 | s0 | n | dstep | sstep | base) & 3) == 0  # every run word-aligned at both ends
        for _r in range(count):
            d = d0
            s = s0
            if words:
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
            d0 += dstep
            s0 += sstep
    for _f in range(nfills):
        d = int(p[i])
        end = d + int(p[i + 1])
        i += 2
        k = 0
        while d < end:
            ob[d] = pb[k]
            d += 1
            k += 1


noalloc.mark(_step, _step_at)

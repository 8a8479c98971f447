# Runs on MicroPython ports with a native emitter (tests/test_copy_runs.py):
# native/copy_runs_viper's step against util/runs' reference step
# (loops.copy_bytes over memoryviews) on seeded random runs and fills:
# byte and word runs, runs at constant steps (rows of channels), tensors at odd offsets of their buffers, a buffer
# that is a view at an odd address; each step runs under heap_lock.
import micropython

from mpy_et import dtypes
from mpy_et.tensor import Tensor
from portable_kernels.util import runs

seed = 12345


def rand(n):
    global seed
    seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
    return (seed >> 8) % n


def case(k):
    size = 64 + rand(200)
    xoff, ooff = rand(2) * rand(8), rand(2) * rand(8)  # half the cases at 0: aligned
    xbuf = bytearray(size + xoff + 8)
    for i in range(len(xbuf)):
        xbuf[i] = rand(256)
    obuf = bytearray(size + ooff + 8)
    if k % 5 == 4:  # the output a view at an odd address
        obuf = memoryview(bytearray(size + ooff + 9))[1:]
    x = Tensor(dtypes.BYTE, [size])
    x.bind(xbuf, xoff)
    out = Tensor(dtypes.BYTE, [size])
    out.bind(obuf, ooff)
    blocks, at = [], 0
    if k % 2:  # rows of channels: runs of one length at constant steps (one plan entry)
        n = 1 + rand(12)
        gap = n + rand(2) * 4 * rand(3)
        src_step = n + rand(8)
        count = 1 + rand(size // max(gap, src_step) - 1)  # (size >= 64, steps <= 20: 3 runs at least fit)
        start = rand(size - count * gap + 1)
        src = rand(size - count * src_step + 1)
        blocks = [(start + r * gap, src + r * src_step, n) for r in range(count)]
    while not k % 2 and at < size - 1 and len(blocks) < 12:
        n = 1 + rand(min(40, size - at))
        if rand(2):
            n = (n + 3) & ~3  # word-sized runs
        n = min(n, size - at)
        blocks.append((at, rand(size - n + 1), n))
        at += n + rand(6)
    fills = runs.gaps(blocks, size) if k % 3 == 0 else ()
    return x, out, obuf, blocks, fills


failed = 0
for k in range(200):
    x, out, obuf, blocks, fills = case(k)
    got = []
    for native in (False, True):
        for i in range(len(obuf)):
            obuf[i] = 0xA5
        step, ctx = runs.copy_step(x, out, blocks, fills, -3 if fills else None, native=native)
        micropython.heap_lock()
        step(ctx)
        micropython.heap_unlock()
        got.append(bytes(obuf))
    if got[0] != got[1]:
        failed += 1
        print("FAIL", k, blocks, fills)
print("COPY_RUNS cases=200 failed=%d" % failed)

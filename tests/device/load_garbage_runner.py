# Runs on MicroPython (tests/test_load_garbage.py): load-time reads that must
# make no garbage, each under heap_lock. On a 32-bit port a small int holds 31
# bits: the flatbuffer's signed reads once built a big int per negative value
# (a table's offset to its vtable), and channel_table a message string and
# tuples per channel (60 KB of garbage for a 256-channel layer on the board).
import struct

import micropython

from mpy_et import dtypes
from mpy_et.flatbuf import FlatReader
from mpy_et.tensor import Tensor
from portable_kernels.quantized.requant import channel_table

failed = 0
small = (0, 1, -1, -20, 1000, -1000, (1 << 30) - 1, -(1 << 30))
large = ((1 << 31) - 1, -(1 << 31), 1 << 40, -(1 << 40), (1 << 63) - 1, -(1 << 63))
buf = bytearray(8)
r = FlatReader(buf, 8)
for v in small:  # fit a small int: read without allocating
    struct.pack_into("<q", buf, 0, v)
    micropython.heap_lock()
    try:
        got, got32 = r.i64(0, "i64"), r.i32(0, "i32")
    except MemoryError:
        got = got32 = "allocated"
    micropython.heap_unlock()
    if got != v or got32 != v:
        failed += 1
        print("FLAT", v, got, got32)
for v in large:  # big ints, made on the heap
    struct.pack_into("<q", buf, 0, v)
    if r.i64(0, "i64") != v:
        failed += 1
        print("FLAT", v, r.i64(0, "i64"))


def table(n):
    t = Tensor(dtypes.INT, (n, 8))
    t.bind(bytearray(4 * 8 * n), 0)
    for c in range(n):
        b, m, s, lim = 100 - c, 1000 + c, 20, 1 << 19
        for k, v in enumerate((b + (1 << 29), m, s, lim, b, -lim, s, 1 << (s - 1))):
            t.data[8 * c + k] = v
    return t


def allocated(t, n):  # bytes channel_table allocates (its argument checks, once per call)
    a = micropython.mem_total()
    channel_table(t, n, "table")
    return micropython.mem_total() - a


t8, t = table(8), table(64)
a8, a64 = allocated(t8, 8), allocated(t, 64)
if a64 != a8:  # nothing per channel
    failed += 1
    print("CHANNEL_TABLE allocated", a8, "bytes for 8 channels,", a64, "for 64")
t.data[8 * 5 + 7] = 3  # a wrong Arm column: still caught, naming the channel
try:
    channel_table(t, 64, "table")
    failed += 1
    print("CHANNEL_TABLE missed a bad channel")
except Exception as e:
    if "channel 5" not in str(e):
        failed += 1
        print("CHANNEL_TABLE message", e)
print("LOAD_GARBAGE failed=%d" % failed)

# Runs on unix MicroPython and the emulated Cortex-M3 / M7 (tests/test_f32_mm_viper32.py):
# every case of DATA_DIR/cases.bin through the mm of the module named in
# DATA_DIR/module.txt (f32_mm_viper32 or f32_mm_thumb) under heap_lock, printing the result bits; then which step mm / addmm / bmm
# take on this port and their values with and without an inf operand.
# Case: 9 int32 (batches, m, k, n, b batch stride, bias flag, bias row stride,
# bias column stride, bias words), then the float32 words of a, b and bias.
import gc
import struct
import time
from array import array

import micropython

name = open(DATA_DIR + "/module.txt").read().strip()  # noqa: F821
gc.collect()
free = gc.mem_free()
mm = __import__("portable_kernels.native." + name, None, None, ["mm"]).mm
gc.collect()
print("IMPORT", free - gc.mem_free())

from mpy_et import dtypes  # noqa: E402
from mpy_et.tensor import Tensor  # noqa: E402
from portable_kernels.op_addmm import addmm_out  # noqa: E402
from portable_kernels.op_bmm import bmm_out  # noqa: E402
from portable_kernels.op_mm import mm_out  # noqa: E402

with open(DATA_DIR + "/cases.bin", "rb") as f:  # noqa: F821
    try:
        blob = memoryview(f)  # a board's ROMFS: the 400 KB in place, no RAM
    except TypeError:
        blob = f.read()
pos = 0
case = 0
while pos < len(blob):
    head = struct.unpack_from("<9i", blob, pos)
    pos += 36
    batches, m, k, n, bstride, has_bias, sm, sn, nbias = head
    na = batches * m * k
    nb = (batches - 1) * bstride + k * n
    a = memoryview(blob)[pos : pos + 4 * na]
    pos += 4 * na
    b = memoryview(blob)[pos : pos + 4 * nb]
    pos += 4 * nb
    bias = memoryview(blob)[pos : pos + 4 * nbias]
    pos += 4 * nbias
    ctl = array("i", head[:8])
    o = bytearray(4 * batches * m * n)
    xm = bytearray(4 * k)
    xe = bytearray(4 * k)
    t0 = time.ticks_us()
    micropython.heap_lock()
    r = mm(xm, xm, 0, xe, a, b, o, bias if nbias else ctl, ctl)
    micropython.heap_unlock()
    us = time.ticks_diff(time.ticks_us(), t0)
    words = struct.unpack("<%dI" % (len(o) // 4), o)
    print("CASE", case, r, us, " ".join("%x" % w for w in words))
    case += 1


def tensor(dtype, sizes, values):
    t = Tensor(dtype, sizes)
    t.bind(bytearray(t.nbytes), 0)
    for i in range(len(values)):
        t.data[i] = values[i]
    return t


def values(t):
    return [t.data[i] for i in range(t.numel)]


F = dtypes.FLOAT
A = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
B = [1.0, -1.0, 0.5, 2.0, -2.0, 0.25]
a = tensor(F, [2, 3], A)
b = tensor(F, [3, 2], B)
bias = tensor(F, [2], [10.0, 20.0])
out = tensor(F, [2, 2], [0.0] * 4)
for what, (step, ctx) in (
    ("mm", mm_out(a, b, out)),
    ("addmm", addmm_out(bias, a, b, 1, 1, out)),
    ("addmm alpha 2", addmm_out(bias, a, b, 1, 2.0, out)),
    ("bmm", bmm_out(tensor(F, [1, 2, 3], A), tensor(F, [1, 3, 2], B), tensor(F, [1, 2, 2], [0.0] * 4))),
    ("mm f64", mm_out(tensor(dtypes.DOUBLE, [2, 3], A), tensor(dtypes.DOUBLE, [3, 2], B), tensor(dtypes.DOUBLE, [2, 2], [0.0] * 4))),
):
    step(ctx)
    print("STEP", what, getattr(step, "__name__", "asm"))  # an asm_thumb step has no name
import portable_kernels.op_mm as op_mm  # noqa: E402

print("FAST", int(getattr(op_mm, "viper_mm", None) is not None))
step, ctx = addmm_out(bias, a, b, 1, 1, out)
step(ctx)
print("VALUES", values(out))
a.data[4] = float("inf")
step(ctx)
print("VALUES", values(out))

# Runs on unix MicroPython (tests/test_f32_mm_viper.py): every case of
# DATA_DIR/cases.bin through portable_kernels.native.f32_mm_viper.mm, printing the
# result bits. Case: 9 int32 (batches, m, k, n, b batch stride, bias flag,
# bias row stride, bias column stride, bias words), then the float32 words of
# a, b and bias.
import struct
from array import array

import micropython

from mpy_et import dtypes
from mpy_et.tensor import Tensor
from portable_kernels.native.f32_mm_viper import mm
from portable_kernels.op_addmm import addmm_out
from portable_kernels.op_bmm import bmm_out
from portable_kernels.op_mm import mm_out

blob = open(DATA_DIR + "/cases.bin", "rb").read()  # noqa: F821
AS_READ = int(open(DATA_DIR + "/as_read").read())  # noqa: F821
pos = 0
case = 0
r = 0
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
    ctl = array("i", head[:8] + (AS_READ,))
    o = bytearray(4 * batches * m * n)
    xm = bytearray(4 * k)
    xe = bytearray(4 * k)
    micropython.heap_lock()
    r = mm(xm, xm, 0, xe, a, b, o, bias if nbias else ctl, ctl)
    micropython.heap_unlock()
    words = struct.unpack("<%dI" % (len(o) // 4), o)
    print("CASE", case, r, " ".join("%x" % w for w in words))
    case += 1

# the kernels take the viper step for float32, the bytecode one for float64
# and for alpha != 1, and fall back to bytecode on inf


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
    print("STEP", what, step.__name__)
step, ctx = addmm_out(bias, a, b, 1, 1, out)
step(ctx)
print("VALUES", values(out))
a.data[4] = float("inf")
step(ctx)
print("VALUES", values(out))

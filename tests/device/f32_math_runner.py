# Runs on unix MicroPython (tests/test_f32_math_viper.py): float32 sigmoid and
# tanh (and gelu's tanh form) of the values in DATA_DIR/x.bin through
# f32_sigmoid_viper.unary, gelu through f32_gelu_viper.gelu, and
# softmax of DATA_DIR/rows.bin through f32_softmax_viper.softmax, layer norm
# rows of DATA_DIR/ln.bin through op_native_layer_norm's viper step, under
# heap_lock, printed as hex bit patterns with the count of results that differ
# from the bytecode steps'; then the kernels' steps in place with inf/NaN.
import binascii
import struct
from array import array

import micropython

from mpy_et import dtypes
from mpy_et.tensor import Tensor
from portable_kernels import op_gelu, op_native_layer_norm, op_sigmoid, op_softmax, op_tanh
from portable_kernels.native import f32_layer_norm_viper as lnv
from portable_kernels.native.f32_gelu_viper import TABLE, gelu
from portable_kernels.native.f32_sigmoid_viper import unary
from portable_kernels.native.f32_softmax_viper import softmax

blob = open(DATA_DIR + "/x.bin", "rb").read()  # noqa: F821
n = len(blob) // 4
a = array("f", blob)
o = array("f", bytes(4 * n))
w = array("f", bytes(4 * n))
for op, name, plain in ((0, "sigmoid", op_sigmoid._sigmoid), (1, "tanh", op_tanh._tanh), (2, "gelu_tanh", op_gelu._gelu_tanh)):
    micropython.heap_lock()
    done = unary(a, o, n, op)
    micropython.heap_unlock()
    plain((a, w, n, op_tanh.math.exp if op == 0 else op_tanh.math.tanh))
    got = struct.unpack("<%dI" % n, o)
    want = struct.unpack("<%dI" % n, w)
    differ = sum(1 for i in range(n) if got[i] != want[i])
    print("UNARY", name, done, n, differ, binascii.hexlify(o).decode())
micropython.heap_lock()
done = gelu(a, o, n, TABLE)
micropython.heap_unlock()
op_gelu._gelu((a, w, n, op_tanh.math.erf))
differ = sum(1 for i in range(n) if struct.unpack_from("<I", o, 4 * i) != struct.unpack_from("<I", w, 4 * i))
print("UNARY gelu", done, n, differ, binascii.hexlify(o).decode())

blob = open(DATA_DIR + "/rows.bin", "rb").read()  # noqa: F821
n = len(blob) // 4
a = array("f", blob)
o = array("f", bytes(4 * n))
w = array("f", bytes(4 * n))
for outer, size, inner in ((n // 37, 37, 1), (n // 111, 37, 3)):
    micropython.heap_lock()
    done = softmax(a, o, outer, size, inner)
    micropython.heap_unlock()
    op_softmax._softmax((a, w, outer, size * inner, inner, op_tanh.math.exp))
    got = struct.unpack("<%dI" % n, o)
    want = struct.unpack("<%dI" % n, w)
    differ = sum(1 for i in range(n) if got[i] != want[i])
    print("SOFTMAX", inner, done, outer * inner, differ, binascii.hexlify(o).decode())

x = array("f", open(DATA_DIR + "/ln.bin", "rb").read())  # noqa: F821
w = array("f", open(DATA_DIR + "/lnw.bin", "rb").read())  # noqa: F821
b = array("f", open(DATA_DIR + "/lnb.bin", "rb").read())  # noqa: F821
n = len(x)
cols = len(w)
for flags in range(4):
    ww = w if flags & 1 else None
    bb = b if flags & 2 else None
    o = array("f", bytes(4 * n))
    q = array("f", bytes(4 * n))
    mean = array("f", bytes(4 * (n // cols)))
    rstd = array("f", bytes(4 * (n // cols)))
    mean_b = array("f", bytes(4 * (n // cols)))
    rstd_b = array("f", bytes(4 * (n // cols)))
    op_native_layer_norm._viper((x, o, n // cols, cols, 1e-5, ww, bb, mean, rstd, lnv.stats, lnv.normalize, w, b, flags, [0] * 6))
    op_native_layer_norm._layer_norm((x, q, n // cols, cols, 1e-5, ww, bb, mean_b, rstd_b))
    got = struct.unpack("<%dI" % n, o)
    want = struct.unpack("<%dI" % n, q)
    differ = sum(1 for i in range(n) if got[i] != want[i])
    stats_off = max(abs(mean[i] - mean_b[i]) / (abs(mean_b[i]) + 1e-30) + abs(rstd[i] - rstd_b[i]) / rstd_b[i] for i in range(n // cols))
    print("LAYERNORM", flags, differ, stats_off < 1e-6, binascii.hexlify(o).decode())


def tensor(values, sizes=None):
    t = Tensor(dtypes.FLOAT, sizes or [len(values)])
    t.bind(bytearray(t.nbytes), 0)
    for i in range(len(values)):
        t.data[i] = values[i]
    return t


inf = float("inf")
vals = [0.5, -3.0, 20.0, float("nan"), -0.0, 2.0, -inf, inf, 1e-30, -90.0]
for name, kernel in (
    ("sigmoid", op_sigmoid.sigmoid_out),
    ("tanh", op_tanh.tanh_out),
    ("gelu_tanh", lambda x, o: op_gelu.gelu_out(x, "tanh", o)),
    ("gelu", lambda x, o: op_gelu.gelu_out(x, "none", o)),
):
    x = tensor(vals)
    step, ctx = kernel(x, x)  # in place, NaN and inf mid-tensor
    step(ctx)
    print("KERNEL", name, step.__name__, binascii.hexlify(x.data).decode())

rows = [[0.5 * j - 2.0 for j in range(9)], [float(j) for j in range(9)], [-inf] * 4 + [1.0] * 5, [1.0, float("nan")] + [0.0] * 7, [2.0] * 9]
x = tensor([v for r in rows for v in r], [5, 9])
step, ctx = op_softmax.softmax_out(x, -1, False, x)  # in place; a NaN row: it and the rows after in bytecode
step(ctx)
print("KERNEL softmax", step.__name__, binascii.hexlify(x.data).decode())

rows = [[0.25 * j - 1.0 for j in range(16)], [1.0, float("nan")] + [0.0] * 14, [3.0 + j * j for j in range(16)]]
x = tensor([v for r in rows for v in r], [3, 16])
w = tensor([1.0 + 0.125 * j for j in range(16)])
b = tensor([0.5 - 0.25 * j for j in range(16)])
mean = tensor([0.0] * 3, [3, 1])
rstd = tensor([0.0] * 3, [3, 1])
step, ctx = op_native_layer_norm.native_layer_norm_out(x, [16], w, b, 1e-5, x, mean, rstd)  # in place; a NaN row
step(ctx)
print("KERNEL layer_norm", step.__name__, binascii.hexlify(x.data).decode())

# with finite values the element passes allocate nothing (layer norm: its per-row floats do)
x = tensor([0.125 * j - 3.0 for j in range(24)], [2, 12])
o = tensor([0.0] * 24, [2, 12])
for name, (step, ctx) in (
    ("sigmoid", op_sigmoid.sigmoid_out(x, o)),
    ("tanh", op_tanh.tanh_out(x, o)),
    ("gelu_tanh", op_gelu.gelu_out(x, "tanh", o)),
    ("gelu", op_gelu.gelu_out(x, "none", o)),
    ("softmax", op_softmax.softmax_out(x, -1, False, o)),
):
    micropython.heap_lock()
    try:
        step(ctx)
        print("LOCKED", name, "ok")
    except MemoryError:
        print("LOCKED", name, "allocates")
    micropython.heap_unlock()

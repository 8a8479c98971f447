# Runs on unix MicroPython (tests/test_f32_math_viper.py): float32 sigmoid and
# tanh of the values in DATA_DIR/x.bin through f32_sigmoid_viper.unary under
# heap_lock, printed as hex bit patterns with the count of results that differ
# from the bytecode steps'; then the kernels' steps in place with inf/NaN.
import binascii
import struct
from array import array

import micropython

from mpy_et import dtypes
from mpy_et.tensor import Tensor
from portable_kernels import op_sigmoid, op_tanh
from portable_kernels.f32_sigmoid_viper import unary

blob = open(DATA_DIR + "/x.bin", "rb").read()  # noqa: F821
n = len(blob) // 4
a = array("f", blob)
o = array("f", bytes(4 * n))
w = array("f", bytes(4 * n))
for op, name, plain in ((0, "sigmoid", op_sigmoid._sigmoid), (1, "tanh", op_tanh._tanh)):
    micropython.heap_lock()
    done = unary(a, o, n, op)
    micropython.heap_unlock()
    plain((a, w, n, op_tanh.math.exp if op == 0 else op_tanh.math.tanh))
    got = struct.unpack("<%dI" % n, o)
    want = struct.unpack("<%dI" % n, w)
    differ = sum(1 for i in range(n) if got[i] != want[i])
    print("UNARY", name, done, n, differ, binascii.hexlify(o).decode())


def tensor(values):
    t = Tensor(dtypes.FLOAT, [len(values)])
    t.bind(bytearray(t.nbytes), 0)
    for i in range(len(values)):
        t.data[i] = values[i]
    return t


inf = float("inf")
vals = [0.5, -3.0, 20.0, float("nan"), -0.0, 2.0, -inf, inf, 1e-30, -90.0]
for name, kernel in (("sigmoid", op_sigmoid.sigmoid_out), ("tanh", op_tanh.tanh_out)):
    x = tensor(vals)
    step, ctx = kernel(x, x)  # in place, NaN and inf mid-tensor
    step(ctx)
    print("KERNEL", name, step.__name__, binascii.hexlify(x.data).decode())

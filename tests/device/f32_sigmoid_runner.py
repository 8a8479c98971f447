# Runs on the Thumb-2 boards (tests/test_f32_sigmoid_thumb.py): f32_sigmoid_thumb's
# sigmoid and tanh of the float32s in DATA_DIR/xs.bin under heap_lock, printed
# as hex (the host checks them against float64 math), then the count written
# before an inf.
from array import array
from binascii import hexlify

import micropython

from portable_kernels.native.f32_sigmoid_thumb import SIGMOID, TANH, unary

blob = open(DATA_DIR + "/xs.bin", "rb").read()  # noqa: F821
n = len(blob) // 4
a = array("f", blob)
o = bytearray(4 * n)
for op in (SIGMOID, TANH):
    micropython.heap_lock()
    done = unary(a, o, n, op)
    micropython.heap_unlock()
    print("OP", op, done, hexlify(o).decode())
b = array("f", [0.5, -1.0, float("inf"), 2.0])
print("STOP", unary(b, o, 4, SIGMOID), unary(b, o, 4, TANH))

# the kernels' steps: the fast step stops at the NaN / inf, the bytecode tail finishes
from mpy_et import dtypes  # noqa: E402
from mpy_et.tensor import Tensor  # noqa: E402
from portable_kernels.op_sigmoid import sigmoid_out  # noqa: E402
from portable_kernels.op_tanh import tanh_out  # noqa: E402

for what, kernel in (("sigmoid", sigmoid_out), ("tanh", tanh_out)):
    x = Tensor(dtypes.FLOAT, [9])
    x.bind(bytearray(x.nbytes), 0)
    vals = [0.0, 1.0, -2.0, 0.5, float("nan"), 3.0, float("-inf"), 20.0, -0.25]
    for i in range(9):
        x.data[i] = vals[i]
    step, ctx = kernel(x, x)
    step(ctx)  # not under heap_lock: the bytecode tail makes floats
    print("KERNEL", what, getattr(step, "__name__", "asm"), hexlify(x.data).decode())  # an asm_thumb step has no name

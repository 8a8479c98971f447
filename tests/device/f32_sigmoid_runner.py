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

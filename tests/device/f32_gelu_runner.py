# Runs on the Thumb-2 boards (tests/test_f32_gelu_thumb.py): f32_gelu_thumb's
# gelu of the float32s in DATA_DIR/xs.bin under heap_lock, printed as hex (the
# host checks them against float64 math), then the count written before an inf.
import sys
from array import array
from binascii import hexlify

import micropython

from portable_kernels.native.f32_gelu_thumb import CTL, gelu

blob = open(DATA_DIR + "/xs.bin", "rb").read()  # noqa: F821
n = len(blob) // 4
a = array("f", blob)
del blob
o = bytearray(4 * n)
done = 0  # a global made before heap_lock: a new one would grow the dict
micropython.heap_lock()
done = n - gelu(a, o, CTL, n)
micropython.heap_unlock()
print("GELU", done, end=" ")
sys.stdout.write(hexlify(o))
print()
b = array("f", [0.5, -1.0, float("nan"), 2.0])
print("STOP", 4 - gelu(b, o, CTL, 4))

# the kernel's step: the fast step stops at the NaN / inf, the bytecode tail finishes
from mpy_et import dtypes  # noqa: E402
from mpy_et.tensor import Tensor  # noqa: E402
from portable_kernels.op_gelu import gelu_out  # noqa: E402

x = Tensor(dtypes.FLOAT, [9])
x.bind(bytearray(x.nbytes), 0)
vals = [0.0, 1.0, -2.0, 0.5, float("nan"), 3.0, float("-inf"), 20.0, -0.25]
for i in range(9):
    x.data[i] = vals[i]
step, ctx = gelu_out(x, "none", x)
step(ctx)  # not under heap_lock: the bytecode tail makes floats
print("KERNEL", hexlify(x.data).decode())

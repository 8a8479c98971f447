# Runs on unix MicroPython and the boards (tests/test_f32_arith_viper.py): float32
# add, sub and mul of the pairs in DATA_DIR/pairs.bin through the port's native
# binary() (f32_arith.native(): f32_arith_viper, _fpu or _thumb),
# against the bytecode result (a float64 op of two float32s stored as
# float32), bit for bit; then the kernels' steps, in place, with a NaN.
import struct
from array import array

import micropython

from mpy_et import dtypes
from mpy_et.tensor import Tensor
from portable_kernels.op_add import add_out, add_scalar_out
from portable_kernels.op_mul import mul_out
from portable_kernels.op_sub import sub_out
from portable_kernels.util.f32_arith import native

blob = open(DATA_DIR + "/pairs.bin", "rb").read()  # noqa: F821
n = len(blob) // 8
a = array("f", blob[: 4 * n])
b = array("f", blob[4 * n :])
o = bytearray(4 * n)  # float32 bits (binary() takes any buffer), compared as bytes
want = bytearray(4 * n)
binary = native()
done = 0
for op in range(3):
    micropython.heap_lock()
    done = binary(a, b, o, op, n, 0, 0, 0, 1, 1)
    micropython.heap_unlock()
    for i in range(n):
        struct.pack_into("<f", want, 4 * i, a[i] + b[i] if op == 0 else (a[i] - b[i] if op == 1 else a[i] * b[i]))
    differ = 0 if o == want else sum(1 for i in range(0, 4 * n, 4) if o[i : i + 4] != want[i : i + 4])
    print("OP", op, done, differ, n)


def tensor(sizes, values):
    t = Tensor(dtypes.FLOAT, sizes)
    t.bind(bytearray(t.nbytes), 0)
    for i in range(len(values)):
        t.data[i] = values[i]
    return t


def values(t):
    return [t.data[i] for i in range(t.numel)]


nan = float("nan")
for what, kernel in (("add", lambda x, y, z: add_out(x, y, 1, z)), ("sub", lambda x, y, z: sub_out(x, y, 1, z)), ("mul", mul_out)):
    x = tensor([2, 3], [1.5, nan, -2.0, 4.0, 0.25, -0.0])
    y = tensor([3], [0.5, 2.0, float("inf")])
    step, ctx = kernel(x, y, x)  # in place, broadcast rows, NaN and inf mid-row
    step(ctx)
    print("KERNEL", what, step.__name__, values(x))

# whole tensors (the flat step) and a scalar operand: the fast step stops at
# the NaN / inf and the bytecode tail finishes
inf = float("inf")
xs = [1.5, nan, -2.0, 4.0, 0.25, -0.0, 3.0, inf, 1.0]
for what, kernel in (("add", lambda x, y, z: add_out(x, y, 1, z)), ("sub", lambda x, y, z: sub_out(x, y, 1, z)), ("mul", mul_out)):
    x = tensor([9], xs)
    y = tensor([9], [0.5, 2.0, inf, 0.5, 2.0, 1.0, 0.5, 1.0, 2.0])
    step, ctx = kernel(x, y, x)
    step(ctx)
    print("FLAT", what, getattr(step, "__name__", "asm"), values(x))  # an asm_thumb step has no name
x = tensor([9], xs)
step, ctx = add_scalar_out(x, 0.5, 1, x)
step(ctx)
print("FLAT add.Scalar", step.__name__, values(x))

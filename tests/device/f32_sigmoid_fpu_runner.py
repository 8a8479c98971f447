# Runs on the Cortex-M7 board (tests/test_f32_sigmoid_fpu.py): f32_sigmoid_fpu's
# steps (built by op_sigmoid and op_tanh) over the float32s in DATA_DIR/xs.bin,
# run under heap_lock, printed as hex (the host checks them against float64 math).
from binascii import hexlify

import micropython

from mpy_et import dtypes
from mpy_et.tensor import Tensor
from portable_kernels.native import f32_sigmoid_fpu
from portable_kernels.op_sigmoid import sigmoid_out
from portable_kernels.op_tanh import tanh_out

blob = open(DATA_DIR + "/xs.bin", "rb").read()  # noqa: F821
n = len(blob) // 4
x = Tensor(dtypes.FLOAT, [n])
x.bind(bytearray(blob), 0)
o = Tensor(dtypes.FLOAT, [n])
o.bind(bytearray(4 * n), 0)
for what, kernel in (("sigmoid", sigmoid_out), ("tanh", tanh_out)):
    step, ctx = kernel(x, o)
    micropython.heap_lock()
    step(ctx)
    micropython.heap_unlock()
    print("OP", what, step is f32_sigmoid_fpu._step, hexlify(o.data).decode())
    step, ctx = kernel(x, x)  # in place, on a copy
    keep = bytes(x.buf)
    step(ctx)
    print("INPLACE", what, bytes(x.buf) == bytes(o.buf))
    x.buf[:] = keep

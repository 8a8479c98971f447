"""cortex_m::dequantize_per_tensor.out: int8 -> float32, bit for bit as torch's
dequantize_per_tensor ((float32(x) - zp) * float32(scale)).

The 256 results are computed at load with exact integer float32 arithmetic
(cortex_m/f32.py) into a 1 KB table; mpy_et_quant::dequantize_per_tensor's
step (and its native fast paths) copies each one's 4 bytes: no float arithmetic, no
allocation.
"""

import struct

from mpy_et import dim_orders, dtypes
from portable_kernels.cortex_m import f32, layout
from portable_kernels.cortex_m.op_quantize_per_tensor import Table
from portable_kernels.quantized import op_dequantize_per_tensor as dq_op
from portable_kernels.util import checks


def dequantize_per_tensor_out(x, scale, zero_point, quant_min, quant_max, dtype, out):
    what = "cortex_m::dequantize_per_tensor"
    checks.is_tensor(x, what + " input")
    checks.dtype_in(x, (dtypes.CHAR,), what + " input")
    checks.is_tensor(out, what + " out")
    checks.dtype_in(out, (dtypes.FLOAT,), what + " out")
    if dtype != dtypes.CHAR:
        checks.not_supported("%s: dtype %r is not supported; only int8" % (what, dtype))
    checks.same_shape(x, out, what)
    layout.same_order(x, out, what)
    checks.number(scale, what + " scale")
    if not isinstance(zero_point, int):
        checks.fail("%s: zero_point %r must be an int" % (what, zero_point))
    if out.numel == 0:
        return None
    table = bytearray(1024)
    s = f32.of_float(scale)
    for v in range(-128, 128):
        struct.pack_into("<I", table, 4 * (v + 128), f32.encode(f32.mul(f32.round_f32(v - zero_point, 0), s)))
    fast = dq_op.native_step(x, Table(table), out)
    if fast is not None:
        return fast
    return dq_op._dequantize, (x.data, table, 512, out.buf, out.offset, out.numel)


dim_orders.mark(dequantize_per_tensor_out)

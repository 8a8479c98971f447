"""Viper step of mpy_et_quant::dequantize_per_tensor
(quantized/op_dequantize_per_tensor.py): each int8 value's float32 is copied
from the host's 256-entry table. Imported only where the port has a native
emitter (q_requant.use_viper). Does not allocate.
"""

from array import array

import micropython

from mpy_et import noalloc


def prepare_dequantize(x, table, out):
    p = array("i", [out.numel, x.offset, table.offset + 512, out.offset])
    return _dequantize_step, (x.buf, table.buf, out.buf, p)


def _dequantize_step(ctx):
    _dequantize(ctx[0], ctx[1], ctx[2], ctx[3])


@micropython.viper
def _dequantize(x: ptr8, t: ptr8, o: ptr8, p: ptr32):  # noqa: F821 (viper types)
    n = int(p[0])
    xi = int(p[1])
    t0 = int(p[2])  # the entry of value 0; value v at t0 + 4 * v
    oi = int(p[3])
    end = xi + n
    while xi < end:
        e = t0 + 4 * ((x[xi] ^ 0x80) - 128)
        o[oi] = t[e]
        o[oi + 1] = t[e + 1]
        o[oi + 2] = t[e + 2]
        o[oi + 3] = t[e + 3]
        xi += 1
        oi += 4


noalloc.mark(_dequantize_step)

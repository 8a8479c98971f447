"""Viper step of mpy_et_quant::lut (quantized/op_lut.py): each int8 value
mapped through the host's 256-byte table. Imported only where the port has a
native emitter (q_requant.use_viper). Does not allocate.
"""

from array import array

import micropython

from mpy_et import noalloc


def prepare_lut(x, table, out):
    p = array("i", [out.numel, x.offset, table.offset, out.offset])
    return _lut_step, (x.buf, table.buf, out.buf, p)


def _lut_step(ctx):
    _lut(ctx[0], ctx[1], ctx[2], ctx[3])


@micropython.viper
def _lut(x: ptr8, t: ptr8, o: ptr8, p: ptr32):  # noqa: F821 (viper types)
    n = int(p[0])
    xi = int(p[1])
    tb = int(p[2])
    oi = int(p[3])
    end = oi + n
    while oi < end:
        o[oi] = t[tb + (x[xi] ^ 0x80)]  # table index = signed value + 128
        xi += 1
        oi += 1


noalloc.mark(_lut_step)

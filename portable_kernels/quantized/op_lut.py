"""mpy_et_quant::lut.out: out = table[x + 128], one int8 table per operator.

Any elementwise function of one int8 tensor (sigmoid, tanh, gelu, hardswish,
silu, elu, ...): the host evaluates PyTorch's dequantize -> op -> quantize on
all 256 input values (host_tools/quant_ref.lut_table), so the device result
is that of the PT2E reference graph. The step does not allocate (Arm:
native/q_lut_thumb.py; other native ports: native/q_lut_viper.py).
"""

from mpy_et import noalloc
from portable_kernels.quantized import requant as q_requant
from portable_kernels.quantized.requant import check_int8
from portable_kernels.util import checks
from portable_kernels.util.emitters import HAS_THUMB


def lut_out(x, table, out):
    what = "mpy_et_quant::lut"
    check_int8(x, what + " input")
    check_int8(out, what + " out")
    checks.same_shape(x, out, what)
    check_int8(table, what + " table")
    if tuple(table.sizes) != (256,):
        checks.fail("%s: table must be int8[256] (outputs of -128..127), got %s" % (what, checks.shape_str(table)))
    if out.numel == 0:
        return None
    if q_requant.use_viper:
        if HAS_THUMB:  # Arm: the step is an assembler function
            from portable_kernels.native import q_lut_thumb as q_lut_viper
        else:
            from portable_kernels.native import q_lut_viper

        return q_lut_viper.prepare_lut(x, table, out)
    return _lut, (x.data, table.data, out.data, out.numel)


def _lut(ctx):
    xd, td, od, n = ctx
    for i in range(n):
        od[i] = td[xd[i] + 128]


noalloc.mark(_lut)

"""mpy_et_quant::dequantize_per_tensor.out: int8 -> float32 by table lookup.

The host stores the 256 float32 results of PyTorch's dequantize_per_tensor
for -128..127; the step copies each one's 4 bytes: bit-identical, no float
arithmetic, no allocation."""

import sys

from mpy_et import dtypes, noalloc
from portable_kernels.quantized import requant as q_requant
from portable_kernels.quantized.requant import check_int8
from portable_kernels.util import checks
from portable_kernels.util.emitters import HAS_THUMB

# A binary classifier's or a regressor's few outputs (at most this many) take the bytecode
# step unless the assembler module is already imported (a max pool's): ~2,500 instructions
# a value on a Cortex-M3, against the ~650 B of RAM its machine code costs on import (at 10
# values, mlp int8 lost a third of its speed for it)
_BYTECODE_MAX = 4


def dequantize_per_tensor_out(x, table, scale, zero_point, out):
    what = "mpy_et_quant::dequantize_per_tensor"
    check_int8(x, what + " input")
    checks.is_tensor(out, what + " out")
    checks.dtype_in(out, (dtypes.FLOAT,), what + " out")
    checks.same_shape(x, out, what)
    checks.is_tensor(table, what + " table")
    checks.dtype_in(table, (dtypes.FLOAT,), what + " table")
    if tuple(table.sizes) != (256,):
        checks.fail("%s: table must be float32[256] (values of -128..127), got %s" % (what, checks.shape_str(table)))
    if out.numel == 0:
        return None
    fast = native_step(x, table, out)
    if fast is not None:
        return fast
    return _dequantize, (x.data, table.buf, table.offset + 512, out.buf, out.offset, out.numel)


def native_step(x, table, out):
    """The port's native (step, ctx) for this table (also cortex_m::dequantize_per_tensor's),
    or None: the bytecode step. Load time."""
    if not q_requant.use_viper:
        return None
    if out.numel <= _BYTECODE_MAX and "portable_kernels.native.q_bytes_thumb" not in sys.modules:
        return None
    if HAS_THUMB:  # Arm: the step an assembler function (None: a float word not aligned)
        from portable_kernels.native import q_bytes_thumb

        prepared = q_bytes_thumb.prepare_dequantize(x, table, out)
        if prepared is not None:
            return prepared
    from portable_kernels.native import q_dequantize_viper

    return q_dequantize_viper.prepare_dequantize(x, table, out)


def _dequantize(ctx):
    xd, tb, t0, ob, o, n = ctx
    for i in range(n):
        t = t0 + 4 * xd[i]  # entry of value v at t0 + 4 * v (t0: entry of 0)
        ob[o] = tb[t]
        ob[o + 1] = tb[t + 1]
        ob[o + 2] = tb[t + 2]
        ob[o + 3] = tb[t + 3]
        o += 4


noalloc.mark(_dequantize)

"""mpy_et_quant::softmax.out: int8 softmax along one dim, integers only.

The host stores T[d] = round(exp(-x_scale * d) * 2**K) for d = 0..255, the
distance below the row's maximum (host_tools/quant_ref.softmax_table). For
each row: m = max(x), S = sum of T[m - x], and
    out = out_zp + (T[m - x] * levels + S // 2) // S, at most 127
(output scale 1 / levels, 256 with zero point -128 as in TFLite Micro). The
load checks n * T[0] <= 2**29 and T[0] * levels <= 2**29: every value stays a
small int on 32-bit ports, so the step does not allocate (viper:
native/q_softmax_viper.py, for more than _BYTECODE_MAX elements).
"""

from mpy_et import dtypes, noalloc
from portable_kernels.quantized import requant as q_requant
from portable_kernels.quantized.requant import check_int8, zero_point
from portable_kernels.util import checks

# A classifier's last softmax (ds_cnn 12 classes, resnet8 10, mobilenet_v1_025 2) takes the
# bytecode step: a few thousand instructions once per inference, against the ~1 KB of RAM
# the viper module's machine code costs on import (native code is copied to RAM).
_BYTECODE_MAX = 16


def softmax_out(x, table, dim, levels, out_zero_point, out):
    what = "mpy_et_quant::softmax"
    check_int8(x, what + " input")
    check_int8(out, what + " out")
    checks.same_shape(x, out, what)
    checks.is_tensor(table, what + " table")
    checks.dtype_in(table, (dtypes.INT,), what + " table")
    if tuple(table.sizes) != (256,):
        checks.fail("%s: table must be int32[256] (exp of 0..255 steps), got %s" % (what, checks.shape_str(table)))
    d = checks.norm_dim(dim, len(x.sizes), what)
    if not isinstance(levels, int) or not 1 <= levels <= 256:
        checks.fail("%s: levels (1 / output scale) must be an int in 1..256, got %r" % (what, levels))
    zo = zero_point(out_zero_point, what + " out_zero_point")
    n = x.sizes[d] if x.sizes else 1
    td = table.data
    top = td[0]
    for i in range(256):
        if not 0 <= td[i] <= top:
            checks.fail("%s: table entries must lie in 0..table[0], entry %d is %d" % (what, i, td[i]))
    if top < 1 or top * max(n, levels) > 1 << 29:
        checks.fail("%s: table[0] = %d with %d elements per row and levels %d leaves the 32-bit-safe range" % (what, top, n, levels))
    if out.numel == 0:
        return None
    inner = 1
    for s in x.sizes[d + 1 :]:
        inner *= s
    outer = x.numel // (n * inner)
    if q_requant.use_viper and x.numel > _BYTECODE_MAX:
        from portable_kernels.native import q_softmax_viper

        return q_softmax_viper.prepare(x, table, out, outer, n, inner, levels, zo)
    return _softmax, (x.data, out.data, td, outer, n, inner, levels, zo)


def _softmax(ctx):
    xd, od, t, outer, n, inner, levels, zo = ctx
    row = 0
    for _ in range(outer):
        for j in range(inner):
            p = row + j
            m = -128
            i = p
            for _ in range(n):
                v = xd[i]
                if v > m:
                    m = v
                i += inner
            s = 0
            i = p
            for _ in range(n):
                s += t[m - xd[i]]
                i += inner
            h = s >> 1
            i = p
            for _ in range(n):
                q = zo + (t[m - xd[i]] * levels + h) // s
                od[i] = 127 if q > 127 else q
                i += inner
        row += n * inner


noalloc.mark(_softmax)

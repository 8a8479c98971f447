"""cortex_m::quantized_activation.out: out = lut[x + 128] (any int8 -> int8
function as a 256-entry table made ahead of time). mpy_et_quant::lut's step
(and viper fast path); through strides when input and output orders differ."""

from mpy_et import dim_orders, noalloc
from mpy_et.tensor import Tensor
from portable_kernels.cortex_m import conv, layout
from portable_kernels.quantized import op_lut
from portable_kernels.util import checks


def quantized_activation_out(x, lut, out):
    what = "cortex_m::quantized_activation"
    conv.check_q(x, what + " input")
    conv.check_q(lut, what + " lut")
    conv.check_q(out, what + " out")
    if lut.numel != 256:
        checks.fail("%s: lut must hold 256 int8 entries, got %s" % (what, checks.shape_str(lut)))
    checks.same_shape(x, out, what)
    if layout.strides(x) == layout.strides(out):
        return op_lut.lut_out(_flat(x), _flat(lut), _flat(out))
    if out.numel == 0:
        return None
    return _lut, (x.data, lut.data, out.data, tuple(out.sizes), tuple(layout.strides(x)), tuple(layout.strides(out)))


def _flat(t):
    """The same bytes as a 1-D tensor (elementwise: the order does not matter)."""
    f = Tensor(t.dtype, (t.numel,))
    f.bind(t.buf, t.offset, t.data)
    return f


def _lut(ctx):
    xd, td, od, sizes, xs, os_ = ctx
    nd = len(sizes)
    n = 1
    for d in range(nd):
        n *= sizes[d]
    for flat in range(n):
        r = flat
        xi = 0
        oi = 0
        d = nd
        while d:
            d -= 1
            i = r % sizes[d]
            r //= sizes[d]
            xi += i * xs[d]
            oi += i * os_[d]
        od[oi] = td[xd[xi] + 128]


noalloc.mark(_lut)


dim_orders.mark(quantized_activation_out)

"""mpy_et_quant::conv1d.out: int8 1-D convolution (N, C, L), computed by
op_conv2d's kernels as a height-1 convolution."""

from portable_kernels.quantized.op_conv2d import prepare
from portable_kernels.util import checks


def conv1d_out(x, weight, bias, requant_t, stride, padding, dilation, groups, x_zp, out_zp, out_min, out_max, out):
    what = "mpy_et_quant::conv1d"
    if len(getattr(x, "sizes", ())) != 3:
        checks.fail("%s: input must be int8 (N, C, L), got %r" % (what, x))
    return prepare(x, weight, bias, requant_t, stride, padding, dilation, groups, x_zp, out_zp, out_min, out_max, out, what)

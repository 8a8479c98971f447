"""mpy_et_quant::conv1d_packed.out: int8 1-D convolution (N, C, L), computed
by op_conv2d_packed.s kernels as a height-1 convolution."""

from portable_kernels.quantized.op_conv2d_packed import prepare
from portable_kernels.util import checks


def conv1d_packed_out(x, weight, channels, kernel_size, stride, padding, dilation, groups, x_zp, out_zp, out_min, out_max, out):
    what = "mpy_et_quant::conv1d_packed"
    if len(getattr(x, "sizes", ())) != 3:
        checks.fail("%s: input must be int8 (N, C, L), got %r" % (what, x))
    return prepare(x, weight, channels, kernel_size, stride, padding, dilation, groups, x_zp, out_zp, out_min, out_max, out, what)

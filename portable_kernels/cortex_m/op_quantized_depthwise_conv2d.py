"""cortex_m::quantized_depthwise_conv2d.out: int8 depthwise convolution
(groups = input channels, depth_multiplier outputs each), weights IHWO
[1, KH, KW, C_out], per-channel CMSIS-NN requantization (NCHW logical sizes in any dim order (channels-last from ExecuTorch)).
The reference step and its checks are in cortex_m/conv.py."""

from mpy_et import dim_orders
from portable_kernels.cortex_m import conv
from portable_kernels.util import checks


def quantized_depthwise_conv2d_out(
    x, weight, bias, stride, padding, dilation, depth_multiplier, input_offset, output_offset, mults, shifts, act_min, act_max, scratch, out
):
    what = "cortex_m::quantized_depthwise_conv2d"
    if not isinstance(depth_multiplier, int) or depth_multiplier < 1:
        checks.fail("%s: depth_multiplier %r must be a positive int" % (what, depth_multiplier))
    step = conv.prepare(
        x, weight, bias, stride, padding, dilation, input_offset, output_offset, mults, shifts, act_min, act_max, out, what, True, False
    )
    if weight.sizes[3] != depth_multiplier * (x.sizes[3] if False else x.sizes[1]):
        checks.fail(
            "%s: weight %s does not hold depth_multiplier %d channels per input" % (what, checks.shape_str(weight), depth_multiplier)
        )
    return step


dim_orders.mark(quantized_depthwise_conv2d_out)

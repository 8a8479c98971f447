"""cortex_m::quantized_conv2d_nhwc.out: int8 convolution, weights OHWI, per-channel
CMSIS-NN requantization (NHWC logical sizes (explicit-layout flow)). The reference step and its
checks are in cortex_m/conv.py."""

from mpy_et import dim_orders
from portable_kernels.cortex_m import conv


def quantized_conv2d_nhwc_out(
    x, weight, bias, stride, padding, dilation, input_offset, output_offset, mults, shifts, act_min, act_max, scratch, out
):
    return conv.prepare(
        x,
        weight,
        bias,
        stride,
        padding,
        dilation,
        input_offset,
        output_offset,
        mults,
        shifts,
        act_min,
        act_max,
        out,
        "cortex_m::quantized_conv2d_nhwc",
        False,
        True,
    )


dim_orders.mark(quantized_conv2d_nhwc_out)

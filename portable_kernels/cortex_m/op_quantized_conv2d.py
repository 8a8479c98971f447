"""cortex_m::quantized_conv2d.out: int8 convolution, weights OHWI, per-channel
CMSIS-NN requantization (NCHW logical sizes in any dim order (channels-last from ExecuTorch)). The reference step and its
checks are in cortex_m/conv.py."""

from mpy_et import dim_orders
from portable_kernels.cortex_m import conv


def quantized_conv2d_out(
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
        "cortex_m::quantized_conv2d",
        False,
        False,
    )


dim_orders.mark(quantized_conv2d_out)

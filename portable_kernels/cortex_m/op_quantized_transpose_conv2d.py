"""cortex_m::quantized_transpose_conv2d.out: int8 transposed convolution
(cortex_m/transpose_conv.py)."""

from mpy_et import dim_orders
from portable_kernels.cortex_m import transpose_conv


def quantized_transpose_conv2d_out(
    x,
    weight,
    bias,
    stride,
    padding,
    output_padding,
    dilation,
    input_offset,
    output_offset,
    mults,
    shifts,
    act_min,
    act_max,
    scratch,
    output_scratch,
    out,
):
    return transpose_conv.prepare(
        x,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        dilation,
        input_offset,
        output_offset,
        mults,
        shifts,
        act_min,
        act_max,
        out,
        "cortex_m::quantized_transpose_conv2d",
        False,
    )


dim_orders.mark(quantized_transpose_conv2d_out)

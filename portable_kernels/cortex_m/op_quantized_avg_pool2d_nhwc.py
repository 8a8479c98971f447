"""cortex_m::quantized_avg_pool2d_nhwc.out: int8 average pooling (count_include_pad=False;
ExecuTorch's float32 reference replayed exactly at rounding ties). Shared
code in cortex_m/pool.py."""

from mpy_et import dim_orders
from portable_kernels.cortex_m import pool
from portable_kernels.util import checks


def quantized_avg_pool2d_nhwc_out(x, kernel_size, stride, padding, ceil_mode, zero_point, multiplier, shift, scratch, out):
    what = "cortex_m::quantized_avg_pool2d_nhwc"
    geo = pool.geometry(x, kernel_size, stride, padding, (1, 1), ceil_mode, out, what, True)
    if not isinstance(zero_point, int) or not isinstance(multiplier, int) or multiplier <= 0:
        checks.fail("%s: zero_point %r must be an int and multiplier %r a positive int" % (what, zero_point, multiplier))
    if out.numel == 0:
        return None
    return pool.avg_step(x, out, geo, zero_point, multiplier, shift)


dim_orders.mark(quantized_avg_pool2d_nhwc_out)

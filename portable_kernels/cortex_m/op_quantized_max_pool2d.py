"""cortex_m::quantized_max_pool2d.out: int8 max pooling clamped to the
activation range (equal input and output zero points, dilation 1, no
ceil_mode: what ExecuTorch's reference accepts). Shared code in cortex_m/pool.py."""

from mpy_et import dim_orders
from portable_kernels.cortex_m import conv, pool
from portable_kernels.util import checks


def quantized_max_pool2d_out(
    x, kernel_size, stride, padding, dilation, ceil_mode, input_zero_point, output_zero_point, act_min, act_max, out
):
    what = "cortex_m::quantized_max_pool2d"
    geo = pool.geometry(x, kernel_size, stride, padding, dilation, ceil_mode, out, what, False)
    if input_zero_point != output_zero_point:
        checks.fail("%s: input zero point %r and output zero point %r must match" % (what, input_zero_point, output_zero_point))
    if geo[-2:] != (1, 1) or ceil_mode:
        checks.not_supported("%s: only dilation 1 and ceil_mode False (as ExecuTorch's reference)" % what)
    lo, hi = conv.act_range(act_min, act_max, what)
    if out.numel == 0:
        return None
    return pool.max_step(x, out, geo, lo, hi)


dim_orders.mark(quantized_max_pool2d_out)

"""cortex_m::maximum.out: torch.maximum with broadcasting (cortex_m/op_minimum.py)."""

from mpy_et import dim_orders
from portable_kernels.cortex_m import op_minimum


def maximum_out(a, b, out):
    return op_minimum.prepare(a, b, out, "cortex_m::maximum", True)


dim_orders.mark(maximum_out)

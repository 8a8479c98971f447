"""aten::hardtanh.out: clamp to [min_val, max_val] (clamp's loops)."""

from mpy_et import dim_orders
from portable_kernels.op_clamp import clamp_steps
from portable_kernels.util import checks


def hardtanh_out(x, min_val, max_val, out):
    checks.arith_dtype((x,), (min_val, max_val), out, "hardtanh")
    checks.out_shape(out, x.sizes, "hardtanh")
    return clamp_steps(x, out, min_val, max_val)


dim_orders.mark_same(hardtanh_out)  # elementwise: flat over a shared order

"""dim_order_ops::_empty_dim_order.out (ExecuTorch's form of empty): out is
planned memory of the requested size, left as it is (uninitialised, as
torch.empty). Nothing runs at execute()."""

from mpy_et import dim_orders
from portable_kernels.util import checks, dim_order


def empty_dim_order_out(size, order, out):
    what = "_empty_dim_order"
    checks.is_tensor(out, what + " out")
    sizes = checks.int_list(size, len(out.sizes), what + " size", 0)
    checks.out_shape(out, tuple(sizes), what)
    dim_order.requested(order, out, what)
    return None


dim_orders.mark(empty_dim_order_out)

"""dim_order_ops::_clone_dim_order.out (ExecuTorch's form of clone): a copy
of x in out's dim order (the call's dim_order), which converts between
orders (channels-last and contiguous, ...). Any dtype; a byte-range copy
when the orders agree, else bytes moved through both orders' strides; does
not allocate."""

from mpy_et import dim_orders
from portable_kernels.util import checks, dim_order, loops


def clone_dim_order_out(x, non_blocking, order, out):
    what = "_clone_dim_order"
    checks.is_tensor(x, what + " self")
    checks.is_tensor(out, what + " out")
    checks.flag(non_blocking, what + " non_blocking")
    checks.same_dtype(x, out)
    checks.same_shape(x, out, what)
    dim_order.requested(order, out, what)
    if dim_order.converts(x, out):
        return dim_order.copy_between(x, out, what)
    return loops.copy_all(x, out)


dim_orders.mark(clone_dim_order_out)

"""dim_order_ops::_to_dim_order_copy.out (ExecuTorch's form of _to_copy):
x converted to out's dtype, or (same dtype) to out's dim order (the call's
dim_order)."""

from mpy_et import dim_orders
from portable_kernels.util import checks, convert, dim_order, strided


def to_dim_order_copy_out(x, non_blocking, order, out):
    what = "_to_dim_order_copy"
    checks.is_tensor(x, what + " self")
    checks.is_tensor(out, what + " out")
    checks.flag(non_blocking, what + " non_blocking")
    checks.same_shape(x, out, what)
    dim_order.requested(order, out, what)
    if dim_order.converts(x, out):
        return dim_order.copy_between(x, out, what)
    return convert.converter(x, out, x.sizes, strided.view_strides(x), what)


dim_orders.mark(to_dim_order_copy_out)


dim_orders.mark(to_dim_order_copy_out)


def contiguous_order(dim_order, nd, what):
    """dim_order must be None or (0, 1, ..., nd-1): channels-last and other
    layouts are not supported."""
    if dim_order is None:
        return
    if not isinstance(dim_order, (list, tuple)) or list(dim_order) != list(range(nd)):
        checks.not_supported("%s: dim_order %r is not supported; only the contiguous order %s" % (what, dim_order, list(range(nd))))

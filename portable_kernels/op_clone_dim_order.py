"""dim_order_ops::_clone_dim_order.out (ExecuTorch's form of clone): a copy
of x. Only the contiguous dim order. Any dtype; one byte-range copy that
does not allocate."""

from portable_kernels.op_to_dim_order_copy import contiguous_order
from portable_kernels.util import checks, loops


def clone_dim_order_out(x, non_blocking, dim_order, out):
    what = "_clone_dim_order"
    checks.is_tensor(x, what + " self")
    checks.is_tensor(out, what + " out")
    checks.flag(non_blocking, what + " non_blocking")
    contiguous_order(dim_order, len(x.sizes), what)
    checks.same_dtype(x, out)
    checks.same_shape(x, out, what)
    return loops.copy_all(x, out)

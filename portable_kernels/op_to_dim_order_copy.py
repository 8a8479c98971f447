"""dim_order_ops::_to_dim_order_copy.out (ExecuTorch's form of _to_copy):
x converted to out's dtype. Only the contiguous dim order (0, 1, ..., n-1)."""

from portable_kernels.util import checks, convert, strided


def to_dim_order_copy_out(x, non_blocking, dim_order, out):
    what = "_to_dim_order_copy"
    checks.is_tensor(x, what + " self")
    checks.is_tensor(out, what + " out")
    checks.flag(non_blocking, what + " non_blocking")
    contiguous_order(dim_order, len(x.sizes), what)
    checks.same_shape(x, out, what)
    return convert.converter(x, out, x.sizes, strided.view_strides(x), what)


def contiguous_order(dim_order, nd, what):
    """dim_order must be None or (0, 1, ..., nd-1): channels-last and other
    layouts are not supported."""
    if dim_order is None:
        return
    if not isinstance(dim_order, (list, tuple)) or list(dim_order) != list(range(nd)):
        checks.not_supported("%s: dim_order %r is not supported; only the contiguous order %s" % (what, dim_order, list(range(nd))))

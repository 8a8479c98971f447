"""aten::select_copy.int_out: x[..., index, ...] along dim (the dim is
dropped). Any dtype; the step copies raw units and does not allocate."""

from portable_kernels.util import checks, strided


def select_copy_int_out(x, dim, index, out):
    what = "select_copy"
    checks.is_tensor(x, what + " self")
    checks.is_tensor(out, what + " out")
    if not x.sizes:
        checks.fail("%s: cannot select from a 0-dim tensor" % what)
    d = checks.norm_dim(dim, len(x.sizes), what)
    n = x.sizes[d]
    if not isinstance(index, int) or isinstance(index, bool) or not -n <= index < n:
        checks.fail("%s: index %r is out of range for dim %d of size %d" % (what, index, d, n))
    index %= n
    st = strided.view_strides(x)
    sizes = list(x.sizes[:d]) + list(x.sizes[d + 1 :])
    checks.out_shape(out, sizes, what)
    return strided.gather(x, out, sizes, list(st[:d]) + list(st[d + 1 :]), index * st[d])

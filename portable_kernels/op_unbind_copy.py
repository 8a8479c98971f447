"""aten::unbind_copy.int_out: x split along dim into size-1 pieces with
the dim removed, one out tensor each. Any dtype; does not allocate."""

from portable_kernels.op_split_with_sizes_copy import pieces
from portable_kernels.util import checks


def unbind_copy_int_out(x, dim, out, ret=None):
    """`ret`: the return slot some exporters append (the same out list)."""
    what = "unbind_copy"
    checks.is_tensor(x, what + " self")
    if not x.sizes:
        checks.fail("%s: cannot unbind a 0-dim tensor" % what)
    d = checks.norm_dim(dim, len(x.sizes), what)
    return pieces(x, d, [1] * x.sizes[d], out, ret, what, keep_dim=False)

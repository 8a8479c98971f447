"""aten::t_copy.out: transpose of a tensor of at most 2 dims. Any dtype;
the step copies raw units and does not allocate."""

from portable_kernels.op_transpose_copy import swapped
from portable_kernels.util import checks


def t_copy_out(x, out):
    what = "t_copy"
    checks.is_tensor(x, what + " self")
    checks.is_tensor(out, what + " out")
    if len(x.sizes) > 2:
        checks.fail("%s: self must have at most 2 dims, got %s" % (what, checks.shape_str(x)))
    return swapped(x, out, 0, len(x.sizes) - 1 if x.sizes else 0, what)

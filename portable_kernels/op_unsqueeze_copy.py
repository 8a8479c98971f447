"""aten::unsqueeze_copy.out: x with a size-1 dim inserted at dim. Any
dtype; the step is one byte-range copy and does not allocate."""

from portable_kernels.util import checks, loops


def unsqueeze_copy_out(x, dim, out):
    what = "unsqueeze_copy"
    checks.is_tensor(x, what + " self")
    checks.is_tensor(out, what + " out")
    checks.same_dtype(x, out)
    d = checks.norm_dim(dim, len(x.sizes) + 1, what)
    checks.out_shape(out, tuple(x.sizes[:d]) + (1,) + tuple(x.sizes[d:]), what)
    return loops.copy_all(x, out)

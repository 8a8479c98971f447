"""aten::scalar_tensor.out: a 0-dim out holding s cast to out's dtype."""

from portable_kernels.util import checks, fill


def scalar_tensor_out(s, out):
    checks.is_tensor(out, "scalar_tensor out")
    checks.out_shape(out, (), "scalar_tensor")
    return fill.filler(out, s, "scalar_tensor")

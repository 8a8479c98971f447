"""aten::full.out: out (of `size`) filled with fill_value cast to out's
dtype. Any dtype; the step does not allocate."""

from portable_kernels.util import checks, fill


def full_out(size, fill_value, out):
    what = "full"
    checks.is_tensor(out, what + " out")
    if not isinstance(size, (tuple, list)) or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in size):
        checks.fail("%s: size must be a list of non-negative ints, got %r" % (what, size))
    checks.out_shape(out, size, what)
    return fill.filler(out, fill_value, what)

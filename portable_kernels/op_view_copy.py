"""aten::view_copy.out: out gets x's elements under a new shape (one -1
allowed). Any dtype; the step is one byte-range copy and does not allocate."""

from portable_kernels.util import checks, loops


def view_copy_out(x, size, out):
    checks.is_tensor(x, "view_copy self")
    checks.is_tensor(out, "view_copy out")
    checks.same_dtype(x, out)
    checks.out_shape(out, infer_size(size, x.numel, "view_copy"), "view_copy")
    return loops.copy_all(x, out)


def infer_size(size, numel, what):
    """Resolve one -1 in `size` so that it holds numel elements."""
    if not isinstance(size, (tuple, list)) or not all(isinstance(v, int) and not isinstance(v, bool) for v in size):
        checks.fail("%s: size must be a list of ints, got %r" % (what, size))
    known = 1
    free = -1
    for i, v in enumerate(size):
        if v == -1:
            if free >= 0:
                checks.fail("%s: only one dimension can be -1, got %s" % (what, list(size)))
            free = i
        elif v < 0:
            checks.fail("%s: invalid size %d in %s" % (what, v, list(size)))
        else:
            known *= v
    size = list(size)
    if free >= 0:
        if known == 0 or numel % known:
            checks.fail("%s: shape %s is invalid for input of size %d" % (what, size, numel))
        size[free] = numel // known
    elif known != numel:
        checks.fail("%s: shape %s is invalid for input of size %d" % (what, size, numel))
    return tuple(size)

"""aten::expand_copy.out: x broadcast to `size` (-1 keeps a dim; new dims
lead). Any dtype; the step copies raw units and does not allocate."""

from portable_kernels.util import checks, strided


def expand_copy_out(x, size, implicit, out):
    what = "expand_copy"
    checks.is_tensor(x, what + " self")
    checks.is_tensor(out, what + " out")
    checks.flag(implicit, what + " implicit")
    sizes, strides = expand_strides(x, size, what)
    checks.out_shape(out, sizes, what)
    return strided.gather(x, out, sizes, strides, 0)


def expand_strides(x, size, what):
    """(sizes, element strides) of x expanded to `size` (stride 0 where repeated)."""
    if not isinstance(size, (tuple, list)) or not all(isinstance(v, int) and not isinstance(v, bool) for v in size):
        checks.fail("%s: size must be a list of ints, got %r" % (what, size))
    nd = len(x.sizes)
    k = len(size) - nd
    if k < 0:
        checks.fail("%s: size %s has fewer dims than self %s" % (what, list(size), checks.shape_str(x)))
    st = strided.view_strides(x)
    sizes, strides = [], []
    for i, v in enumerate(size):
        if i < k:
            if v < 0:
                checks.fail("%s: size %s: -1 is not allowed for a new leading dim" % (what, list(size)))
            sizes.append(v)
            strides.append(0)
            continue
        have = x.sizes[i - k]
        if v == -1:
            v = have
        if v != have and have != 1 or v < 0:
            checks.fail("%s: cannot expand %s to %s (dim %d: %d vs %d)" % (what, checks.shape_str(x), list(size), i, have, v))
        sizes.append(v)
        strides.append(st[i - k] if v == have and have != 1 else 0)
    return sizes, strides

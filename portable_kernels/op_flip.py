"""aten::flip.out: x with the order of elements along `dims` reversed. Any
dtype; a strided gather with negative strides (util/strided.py) that does not
allocate."""

from portable_kernels.util import checks, strided


def flip_out(x, dims, out):
    what = "flip"
    checks.is_tensor(x, what + " self")
    checks.is_tensor(out, what + " out")
    checks.same_dtype(x, out)
    if not isinstance(dims, (tuple, list)):
        checks.fail("%s: dims must be a list of ints, got %r" % (what, dims))
    nd = len(x.sizes)
    flipped = [checks.norm_dim(d, nd, what) for d in dims]
    if len(set(flipped)) != len(flipped):
        checks.fail("%s: dim %s appears twice in dims" % (what, list(dims)))
    checks.out_shape(out, x.sizes, what)
    strides = list(strided.view_strides(x))
    offset = 0
    for d in flipped:
        if nd:
            offset += (x.sizes[d] - 1) * strides[d]
            strides[d] = -strides[d]
    return strided.gather(x, out, x.sizes, strides, offset)

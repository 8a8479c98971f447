"""aten::transpose_copy.int_out: x with dims dim0 and dim1 swapped. Any
dtype; the step copies raw units and does not allocate."""

from portable_kernels.util import checks, strided


def transpose_copy_int_out(x, dim0, dim1, out):
    what = "transpose_copy"
    checks.is_tensor(x, what + " self")
    checks.is_tensor(out, what + " out")
    nd = len(x.sizes)
    a = checks.norm_dim(dim0, nd, what)
    b = checks.norm_dim(dim1, nd, what)
    return swapped(x, out, a, b, what)


def swapped(x, out, a, b, what):
    """(step, ctx) writing x with dims a and b swapped into out."""
    sizes = list(x.sizes)
    st = list(strided.view_strides(x))
    if sizes:
        sizes[a], sizes[b] = sizes[b], sizes[a]
        st[a], st[b] = st[b], st[a]
    checks.out_shape(out, sizes, what)
    return strided.gather(x, out, sizes, st, 0)

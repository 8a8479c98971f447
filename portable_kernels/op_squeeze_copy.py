"""aten::squeeze_copy.out / .dim_out / .dims_out: x without size-1 dims
(all of them, or those named that have size 1). Any dtype; the step is one
byte-range copy and does not allocate."""

from portable_kernels.util import checks, loops


def squeeze_copy_out(x, out):
    _ok(x, out)
    return _squeeze(x, range(len(x.sizes)), out)


def squeeze_copy_dim_out(x, dim, out):
    _ok(x, out)
    return _squeeze(x, (checks.norm_dim(dim, len(x.sizes), "squeeze_copy"),), out)


def squeeze_copy_dims_out(x, dims, out):
    _ok(x, out)
    if not isinstance(dims, (tuple, list)):
        checks.fail("squeeze_copy: dim must be a list of ints, got %r" % (dims,))
    return _squeeze(x, [checks.norm_dim(d, len(x.sizes), "squeeze_copy") for d in dims], out)


def _ok(x, out):
    checks.is_tensor(x, "squeeze_copy self")
    checks.is_tensor(out, "squeeze_copy out")
    checks.same_dtype(x, out)


def _squeeze(x, dims, out):
    sizes = tuple(x.sizes[i] for i in range(len(x.sizes)) if not (i in dims and x.sizes[i] == 1))
    checks.out_shape(out, sizes, "squeeze_copy")
    return loops.copy_all(x, out)

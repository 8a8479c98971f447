"""Load-time part of the max/min reductions (amax, amin, argmax, argmin,
max.dim, min.dim, max, min): checks and the walk (kept offsets, reduced
offsets). The op modules hold the loops: for every kept position b, the
reduced elements are x[b + r] for r in the reduced offsets."""

from mpy_et import dtypes
from portable_kernels.op_sum import reduction
from portable_kernels.util import checks


def extreme(x, dim, keepdim, out, what, indices=None):
    """(kept offsets, reduced offsets) of a max/min reduction of x into out
    (same dtype), and into `indices` (int64, same shape) when given."""
    ko, ro, nr = reduction(x, dim, keepdim, out, what, checks.ANY)
    if nr == 0 and ko:
        checks.fail("%s: cannot reduce over an empty dim of %s (torch raises: no identity)" % (what, checks.shape_str(x)))
    if indices is None:
        checks.same_dtype(x, out)
    else:
        checks.can_cast(x.dtype, out.dtype, what)
        checks.is_tensor(indices, what + " indices")
        if indices.dtype != dtypes.LONG:
            checks.fail("%s: indices out is %s; it must be int64" % (what, checks.shape_str(indices)), checks.INVALID_TYPE)
        checks.out_shape(indices, out.sizes, what + " indices")
    return ko, (range(nr) if ro is None else ro)


def arg(x, dim, keepdim, out, what):
    """(kept offsets, reduced offsets) of argmax/argmin: dim None flattens."""
    if dim is not None and not isinstance(dim, int):
        checks.fail("%s: dim must be an int or None, got %r" % (what, dim))
    ko, ro, nr = reduction(x, dim, keepdim, out, what, checks.NUMERIC)  # torch: no bool argmax
    if nr == 0 and ko:
        checks.fail("%s: cannot reduce over an empty dim of %s (torch raises)" % (what, checks.shape_str(x)))
    if out.dtype != dtypes.LONG:
        checks.fail("%s: out is %s; it must be int64" % (what, checks.shape_str(out)), checks.INVALID_TYPE)
    return ko, (range(nr) if ro is None else ro)


def dim_arg(dim, what):
    if not isinstance(dim, int) or isinstance(dim, bool):
        checks.fail("%s: dim must be an int, got %r" % (what, dim))
    return dim

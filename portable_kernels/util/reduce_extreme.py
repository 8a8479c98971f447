"""Load-time part of the max/min reductions (amax, amin, argmax, argmin,
max.dim, min.dim, max, min): checks and the walk (kept offsets, reduced
offsets). The op modules hold the loops: for every kept position b, the
reduced elements are x[b + r] for r in the reduced offsets."""

from array import array

from mpy_et import dtypes
from portable_kernels.op_sum import _offsets, reduction, reduction_dims
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


def extreme_walk(x, dim, keepdim, out, what):
    """The checks of extreme() (no indices) and, for a float32 reduction with
    elements, its walk as one int32 array: [kept outer count, kept inner
    count, kept inner stride, reduced outer count, reduced inner count,
    reduced inner stride, kept outer offsets..., reduced outer offsets...].
    Adjacent dims that step as one are merged and the innermost of each set
    is walked by its stride, so the array holds the outer offsets only (a
    2x2 max pool over C x H x W keeps C * H / 2 of them, not C * H * W / 4).
    None when there is nothing to walk (an empty kept dim)."""
    kept, red = reduction_dims(x, dim, keepdim, out, what, checks.ANY)
    checks.same_dtype(x, out)
    if 0 in red[0] and 0 not in kept[0]:
        checks.fail("%s: cannot reduce over an empty dim of %s (torch raises: no identity)" % (what, checks.shape_str(x)))
    if 0 in kept[0]:
        return None
    ko, nk, sk = _runs(kept[0], kept[1])
    ro, nr, sr = _runs(red[0], red[1])
    return array("i", [len(ko), nk, sk, len(ro), nr, sr] + ko + ro)


def _runs(sizes, strides):
    """(outer offsets, inner count, inner stride) of the dims (sizes,
    strides), adjacent dims that step as one merged."""
    ms, mt = [], []
    for n, s in zip(sizes, strides):
        if n == 1:
            continue
        if ms and mt[-1] == n * s:
            ms[-1] *= n
            mt[-1] = s
        else:
            ms.append(n)
            mt.append(s)
    if not ms:
        return [0], 1, 0
    return _offsets(ms[:-1], mt[:-1]), ms[-1], mt[-1]


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

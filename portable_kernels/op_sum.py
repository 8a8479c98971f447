"""aten::sum.IntList_out and the reduction loop shared with mean.

dim None or [] reduces every dim. At load time the kept and reduced index
sets become offset lists; when the reduced dims form one contiguous block
(global pooling, last-dim reductions) the step walks a range instead.
Integer sums are exact Python ints (int32 and bool input: allocation only
past +-2**30 on 32-bit ports); float sums box floats. Bool and integer
inputs sum to int64, as torch.
"""

from mpy_et import dtypes
from portable_kernels.util import checks, loops


def sum_intlist_out(x, dim, keepdim, dtype, out):
    what = "sum.IntList"
    ko, ro, nr = reduction(x, dim, keepdim, out, what, checks.ANY)
    compute = x.dtype if dtype is None else dtype
    if dtype is None and compute in checks.INTEGRAL + (dtypes.BOOL,):
        compute = dtypes.LONG  # torch sums bool and integer tensors as int64
    if dtype is not None and out.dtype != dtype:
        checks.fail("%s: dtype %s differs from out %s" % (what, dtypes.name(dtype), checks.shape_str(out)), checks.INVALID_TYPE)
    checks.can_cast(compute, out.dtype, what)
    zero = 0.0 if compute in dtypes.FLOATING or out.dtype in dtypes.FLOATING else 0
    return reduce_step(x, out, ko, ro, nr, zero, 0)


def reduction(x, dim, keepdim, out, what, allowed=checks.READABLE):
    """Check a reduction over dims `dim` (an int, a list, or None/[] for
    all) of x (a dtype in `allowed`) and out's shape.

    Returns (kept offsets, reduced offsets or None if contiguous, reduced count).
    """
    kept, red = reduction_dims(x, dim, keepdim, out, what, allowed)
    ko = _offsets(kept[0], kept[1])
    ro = _offsets(red[0], red[1])
    nr = len(ro)
    if ro == list(range(nr)):
        ro = None
    return ko, ro, nr


def reduction_dims(x, dim, keepdim, out, what, allowed=checks.READABLE):
    """Check a reduction (as reduction()); return the kept and the reduced
    dims of x as ([sizes], [strides]) each, in order."""
    checks.is_tensor(x, what + " self")
    checks.dtype_in(x, allowed, what + " self")
    checks.is_tensor(out, what + " out")
    checks.dtype_in(out, checks.ANY, what + " out")
    checks.flag(keepdim, what + " keepdim")
    nd = len(x.sizes)
    if dim is None or (isinstance(dim, (tuple, list)) and not dim):
        red = list(range(nd))
    else:
        if not isinstance(dim, (tuple, list)):
            dim = (dim,)
        red = [checks.norm_dim(d, nd, what) for d in dim]
        if len(set(red)) != len(red):
            checks.fail("%s: dim %s lists a dim twice" % (what, list(dim)))
    red = [d for d in sorted(red) if d < nd]  # a 0-dim input reduces nothing
    kept = [d for d in range(nd) if d not in red]
    if keepdim:
        shape = tuple(1 if d in red else x.sizes[d] for d in range(nd))
    else:
        shape = tuple(x.sizes[d] for d in kept)
    checks.out_shape(out, shape, what)
    st = loops.contiguous_strides(x.sizes)
    return ([x.sizes[d] for d in kept], [st[d] for d in kept]), ([x.sizes[d] for d in red], [st[d] for d in red])


def _offsets(sizes, strides):
    offs = [0]
    for d in range(len(sizes)):
        s = strides[d]
        offs = [o + i * s for o in offs for i in range(sizes[d])]
    return offs


def reduce_step(x, out, ko, ro, nr, zero, div):
    """out[k] = sum of x over reduction k, divided by div unless div is 0."""
    return _reduce, (x.data, out.data, ko, len(ko), ro, nr, zero, div)


def _reduce(ctx):
    x, o, ko, nk, ro, nr, zero, div = ctx
    for k in range(nk):
        b = ko[k]
        s = zero
        if ro is None:
            for i in range(b, b + nr):
                s += x[i]
        else:
            for r in ro:
                s += x[b + r]
        o[k] = s / div if div else s

"""aten::any.out (one dim), aten::any.dims_out (a list; None is every dim,
[] none, as torch), aten::any.all_out: whether any element is nonzero (NaN counts), into
a bool out; what x.all() and attention masks export to. Any input dtype.
Allocation: none for bool and int32 inputs."""

from mpy_et import dtypes
from portable_kernels.op_sum import reduction
from portable_kernels.util import checks


def any_out(x, dim, keepdim, out):
    if not isinstance(dim, int) or isinstance(dim, bool):
        checks.fail("any: dim must be an int, got %r" % (dim,))
    return _steps(x, dim, keepdim, out, "any")


def any_dims_out(x, dim, keepdim, out):
    if isinstance(dim, (tuple, list)) and not dim:  # unlike sum's, any's [] reduces no dim
        checks.is_tensor(x, "any.dims self")
        checks.bool_out(out, x.sizes, "any.dims")
        return _any, (x.data, out.data, range(x.numel), (0,))
    return _steps(x, dim, keepdim, out, "any.dims")


def any_all_out(x, out):
    return _steps(x, None, False, out, "any.all")


def _steps(x, dim, keepdim, out, what):
    ko, ro, nr = reduction(x, dim, keepdim, out, what, checks.ANY)
    if out.dtype != dtypes.BOOL:
        checks.fail("%s: out is %s; it must be bool" % (what, checks.shape_str(out)), checks.INVALID_TYPE)
    return _any, (x.data, out.data, ko, range(nr) if ro is None else ro)


def _any(ctx):
    x, o, ko, ro = ctx
    k = 0
    for b in ko:
        found = 0
        for r in ro:
            if x[b + r]:
                found = 1
                break
        o[k] = found
        k += 1

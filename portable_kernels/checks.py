"""Load-time argument checks shared by kernels. Never called from a step."""

from mpy_et import dtypes
from mpy_et.errors import INVALID_ARGUMENT, INVALID_TYPE, MpyEtError


def fail(message, code=INVALID_ARGUMENT):
    raise MpyEtError(code, message)


def shape_str(t):
    return "%s%s" % (dtypes.name(t.dtype), list(t.sizes))


def same_dtype(*tensors):
    d = tensors[0].dtype
    for t in tensors:
        if t.dtype != d:
            fail("dtype mismatch: %s" % ", ".join(shape_str(x) for x in tensors), INVALID_TYPE)


def dtype_in(t, allowed, what):
    if t.dtype not in allowed:
        fail("%s is %s; supported: %s" % (what, shape_str(t), ", ".join(dtypes.name(d) for d in allowed)), INVALID_TYPE)


def same_shape(a, b, what):
    if tuple(a.sizes) != tuple(b.sizes):
        fail("%s: shapes differ: %s vs %s" % (what, shape_str(a), shape_str(b)))


def dim_count(t, n, what):
    if len(t.sizes) != n:
        fail("%s must have %d dims, got %s" % (what, n, shape_str(t)))


def norm_dim(dim, ndim, what):
    """Wrap a possibly negative dim into range(ndim) (0-dim tensors accept 0/-1)."""
    n = ndim if ndim else 1
    if not -n <= dim < n:
        fail("%s: dim %d out of range for %d dims" % (what, dim, ndim))
    return dim % n

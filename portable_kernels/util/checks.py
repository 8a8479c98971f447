"""Load-time argument checks shared by kernels. Never called from a step."""

import struct

from mpy_et import dtypes
from mpy_et.errors import INVALID_ARGUMENT, INVALID_TYPE, NOT_SUPPORTED, MpyEtError
from mpy_et.tensor import Tensor

# Dtypes a step may read without allocating (int64 reads box a long integer
# on MicroPython, so LONG is accepted only where a kernel copies raw bytes).
READABLE = (dtypes.FLOAT, dtypes.DOUBLE, dtypes.INT, dtypes.SHORT, dtypes.CHAR, dtypes.BYTE)
INTEGRAL = (dtypes.BYTE, dtypes.CHAR, dtypes.SHORT, dtypes.INT, dtypes.LONG)
# Elementwise math accepts int64 too: correct, but its reads box a long
# integer on MicroPython (an int64 step is never allocation-free there).
NUMERIC = READABLE + (dtypes.LONG,)
ANY = NUMERIC + (dtypes.BOOL,)
FLOATS = (dtypes.FLOAT, dtypes.DOUBLE)
_DEFAULT_FLOAT = dtypes.FLOAT
# A Scalar's Python types, built once: a tuple written in an isinstance()
# call is built (allocated) at every call. MicroPython's bool is no int.
_NUMBER = (bool, int, float)


def fail(message, code=INVALID_ARGUMENT):
    raise MpyEtError(code, message)


def shape_str(t):
    return "%s%s" % (dtypes.name(t.dtype), list(t.sizes))


def is_tensor(v, what):
    if not isinstance(v, Tensor):
        fail("%s must be a tensor, got %r" % (what, v), INVALID_TYPE)


def same_dtype(*tensors):
    d = tensors[0].dtype
    for t in tensors:
        if t.dtype != d:
            fail("dtype mismatch: %s" % ", ".join(shape_str(x) for x in tensors), INVALID_TYPE)


def dtype_in(t, allowed, what):
    if t.dtype not in allowed:
        if t.dtype == dtypes.LONG and dtypes.LONG not in allowed:
            fail(
                "%s is %s: int64 is not supported here (reading int64 allocates on MicroPython); export with int32" % (what, shape_str(t)),
                INVALID_TYPE,
            )
        fail("%s is %s; supported: %s" % (what, shape_str(t), ", ".join(dtypes.name(d) for d in allowed)), INVALID_TYPE)


def same_shape(a, b, what):
    if tuple(a.sizes) != tuple(b.sizes):
        fail("%s: shapes differ: %s vs %s" % (what, shape_str(a), shape_str(b)))


def out_shape(out, sizes, what):
    """The preallocated out tensor must have exactly the result's shape."""
    if tuple(out.sizes) != tuple(sizes):
        fail("%s: out is %s; the result has shape %s" % (what, shape_str(out), list(sizes)))


def dim_count(t, n, what):
    if len(t.sizes) != n:
        fail("%s must have %d dims, got %s" % (what, n, shape_str(t)))


def norm_dim(dim, ndim, what):
    """Wrap a possibly negative dim into range(ndim) (0-dim tensors accept 0/-1)."""
    if not isinstance(dim, int) or isinstance(dim, bool):
        fail("%s: dim must be an int, got %r" % (what, dim))
    n = ndim if ndim else 1
    if not -n <= dim < n:
        fail("%s: dim %d out of range for %d dims" % (what, dim, ndim))
    return dim % n


def number(v, what):
    """A Scalar argument: bool, int or float (MicroPython's bool is no int)."""
    if not isinstance(v, _NUMBER):
        fail("%s must be a number, got %r" % (what, v), INVALID_TYPE)
    return v


def flag(v, what):
    if not isinstance(v, bool):
        fail("%s must be a bool, got %r" % (what, v), INVALID_TYPE)
    return v


def int_list(v, n, what, minimum=None):
    """An int[n] argument; a single value (or a 1-list) is repeated n times."""
    if isinstance(v, int) and not isinstance(v, bool):
        v = (v,)
    if not isinstance(v, (tuple, list)) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        fail("%s must be a list of ints, got %r" % (what, v))
    if len(v) == 1:
        v = tuple(v) * n
    if len(v) != n:
        fail("%s must have %s, got %s" % (what, "1 value" if n == 1 else "1 or %d values" % n, list(v)))
    if minimum is not None:
        for x in v:
            if x < minimum:
                fail("%s must be >= %d, got %s" % (what, minimum, list(v)))
    return tuple(v)


# -- type promotion (torch.result_type) ------------------------------------


def _category(d):
    if d in dtypes.FLOATING:
        return 2
    return 0 if d == dtypes.BOOL else 1


def promote(a, b):
    """torch.promote_types for the dtypes the runtime knows."""
    if a == b:
        return a
    ca, cb = _category(a), _category(b)
    if ca != cb:
        return a if ca > cb else b
    if ca == 2:
        return dtypes.DOUBLE if dtypes.DOUBLE in (a, b) else dtypes.FLOAT
    if dtypes.BYTE in (a, b):  # uint8 with a signed type
        other = b if a == dtypes.BYTE else a
        return dtypes.SHORT if other == dtypes.CHAR else other
    return a if dtypes.itemsize(a) > dtypes.itemsize(b) else b


def result_dtype(tensors, scalars=()):
    """The dtype torch computes `tensors` (op) `scalars` in.

    As torch: dimensioned tensors decide, unless a 0-dim tensor or a Python
    scalar is of a higher category (bool < int < float).
    """
    if not scalars and len(tensors) == 1:
        return tensors[0].dtype  # one tensor: its own type (no frame-heavy loop at load)
    r = None
    for want_dims in (True, False):
        tier = None
        for t in tensors:
            if bool(t.sizes) == want_dims:
                tier = t.dtype if tier is None else promote(tier, t.dtype)
        if tier is not None and (r is None or _category(tier) > _category(r)):
            r = tier
    for s in scalars:
        d = dtypes.BOOL if isinstance(s, bool) else (_DEFAULT_FLOAT if isinstance(s, float) else dtypes.LONG)
        if r is None or _category(d) > _category(r):
            r = d
    return r


def can_cast(src, dst, what):
    """out may hold a wider type than computed, never float -> int or -> bool."""
    if _category(src) > _category(dst):
        fail("%s: result type %s cannot be stored in a %s out tensor" % (what, dtypes.name(src), dtypes.name(dst)), INVALID_TYPE)


def not_supported(message):
    fail(message, NOT_SUPPORTED)


def arith_dtype(tensors, scalars, out, what, bools=False):
    """Check tensor and out dtypes of an arithmetic op; return the compute type.

    Bool tensors may take part (bool + float is float, as in torch); a bool
    compute type is accepted only when `bools` (ops defined on bools; pass it
    positionally: a keyword argument costs an allocation per call).
    """
    # Messages are formatted only on failure: load time stays allocation-light.
    for t in tensors:
        if not isinstance(t, Tensor) or t.dtype not in ANY:
            _bad_input(tensors, t, what)
    for s in scalars:
        if not isinstance(s, _NUMBER):
            number(s, "%s scalar" % what)
    if not isinstance(out, Tensor) or out.dtype not in ANY:
        is_tensor(out, "%s out" % what)
        dtype_in(out, ANY, "%s out" % what)
    r = result_dtype(tensors, scalars)
    if r == dtypes.BOOL and not bools:
        _bool_arith(tensors, what)
    can_cast(r, out.dtype, what)
    return r


def _bool_arith(tensors, what):
    fail("%s: not defined on bool tensors (%s); use the logical operators" % (what, ", ".join(shape_str(t) for t in tensors)), INVALID_TYPE)


def _bad_input(tensors, t, what):
    i = tensors.index(t)
    is_tensor(t, "%s input %d" % (what, i))
    dtype_in(t, ANY, "%s input %d" % (what, i))


def float32(v):
    """A Python float rounded to float32, as torch rounds a Scalar operand
    of a float32 op (comparisons must see the same value)."""
    try:
        return struct.unpack("<f", struct.pack("<f", v))[0]
    except OverflowError:  # CPython: past float32's range
        return v * 1e300 * 1e300  # +-inf


def scalar_as(v, compute):
    """Scalar operand v as the compute type sees it (load time)."""
    if compute == dtypes.FLOAT:
        return float32(float(v))
    if compute == dtypes.DOUBLE:
        return float(v)
    return v


def alpha(value, compute, what):
    """A Scalar alpha: a number, and not a float for integer tensors (as torch)."""
    number(value, "%s alpha" % what)
    if isinstance(value, float) and compute not in dtypes.FLOATING:
        fail("%s: alpha must not be a floating point number for integer tensors, got %r" % (what, value), INVALID_TYPE)
    return value


def unary(x, out, what, floating=False):
    """Elementwise op checks: readable input, out of x's shape and a type
    the result casts to (a floating result when `floating`)."""
    r = arith_dtype((x,), (), out, what, floating)
    if floating and r not in dtypes.FLOATING:
        r = dtypes.FLOAT
        can_cast(r, out.dtype, what)
    out_shape(out, x.sizes, what)
    return r


def floating(x, out, what):
    """A float-only elementwise op (torch defines it on floating types only):
    x float32/float64, out of x's shape and dtype."""
    is_tensor(x, what + " self")
    dtype_in(x, FLOATS, what + " self")
    is_tensor(out, what + " out")
    same_dtype(x, out)
    out_shape(out, x.sizes, what)
    return x.dtype


def bool_out(out, sizes, what):
    """The out tensor of a comparison or logical op: bool, of the result's shape."""
    is_tensor(out, what + " out")
    if out.dtype != dtypes.BOOL:
        fail("%s: out is %s; it must be bool" % (what, shape_str(out)), INVALID_TYPE)
    out_shape(out, sizes, what)

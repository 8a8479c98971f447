"""Index tensors read by the gather-style kernels (embedding, index_select,
index, gather): int32 or int64, int64 read as its low int32 word (no
allocation; an index beyond int32 is out of range for any tensor this
runtime holds). Out-of-range indices fail when the step meets them."""

from mpy_et import dtypes
from mpy_et.errors import INVALID_ARGUMENT, MpyEtError
from mpy_et.tensor import typed_view
from portable_kernels.util import checks


def view(t, what):
    """(view, step): t's indices as view[k * step]."""
    checks.is_tensor(t, what)
    checks.dtype_in(t, (dtypes.INT, dtypes.LONG), what)
    if t.numel == 0:
        return (), 1
    if t.dtype == dtypes.LONG:
        return typed_view(t.buf, t.offset, 2 * t.numel, dtypes.INT), 2
    return t.data, 1


def out_of_range(what, v, n):
    """Raised from a step (allocates, but only on the way out)."""
    raise MpyEtError(INVALID_ARGUMENT, "%s: index %d is out of range for a dim of size %d" % (what, v, n))

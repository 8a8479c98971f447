"""executorch_prim::et_copy_index.tensor(copy_to, copy_from, index):
copy_to[index] = copy_from, the step of torch.ops.higher_order.map that
gathers the body's results row by row (index: the loop's counter, an
mpy_et.loops.Cell, or a constant Int).

ExecuTorch's kernel resizes copy_to to index + 1 rows at each call; here
copy_to keeps the size the program plans for it, which the loop fills
completely (checked at load: the counter's last value is its last row).
The step copies the row's bytes (in viper where the port has a native
emitter, else raw units in bytecode) and does not allocate."""

from array import array

from mpy_et.errors import NOT_SUPPORTED
from mpy_et.noalloc import mark
from portable_kernels.util import checks
from portable_kernels.util.emitters import HAS_NATIVE
from portable_kernels.util.strided import raw_view

_WHAT = "et_copy_index"


def et_copy_index_tensor(copy_to, copy_from, index):
    checks.is_tensor(copy_to, _WHAT + " copy_to")
    checks.is_tensor(copy_from, _WHAT + " copy_from")
    checks.same_dtype(copy_to, copy_from)
    if not copy_to.sizes or tuple(copy_to.sizes[1:]) != tuple(copy_from.sizes):
        checks.fail("%s: copy_from %s is not a row of copy_to %s" % (_WHAT, list(copy_from.sizes), list(copy_to.sizes)))
    if copy_to.dim_order is not None or copy_from.dim_order is not None:
        checks.fail("%s: tensors in a non-contiguous dim_order" % _WHAT, NOT_SUPPORTED)
    n = copy_to.sizes[0]
    if isinstance(index, int) and not isinstance(index, bool):
        if not 0 <= index < n:
            checks.fail("%s: index %d is out of range for %d rows" % (_WHAT, index, n))
        cell = array("i", (index,))
    else:
        from mpy_et.loops import index_range

        hi = index_range(index, n, _WHAT)[1]
        if hi != n - 1:
            checks.fail("%s: the loop fills rows up to %d of the %d planned for its result" % (_WHAT, hi, n), NOT_SUPPORTED)
        cell = index.v
    if copy_from.numel == 0:
        return None
    if HAS_NATIVE:  # one run into row k: copied in viper
        from portable_kernels.native import copy_runs_viper

        return copy_runs_viper.prepare_at(copy_from, copy_to, copy_from.nbytes, 0, 0, cell, 0, copy_from.nbytes)
    src, units = raw_view(copy_from)
    return _copy_at, (raw_view(copy_to)[0], src, copy_from.numel * units, cell)


def _copy_at(ctx):
    """Step: copy_from's units into row k of copy_to."""
    dst, src, n, k = ctx
    a = k[0] * n
    for i in range(n):
        dst[a + i] = src[i]


mark(_copy_at)

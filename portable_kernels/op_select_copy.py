"""aten::select_copy.int_out: x[..., index, ...] along dim (the dim is
dropped). Any dtype; the step copies raw units and does not allocate.
The index may be a map loop's counter (mpy_et/loops.py's Cell): the step
then reads it when it runs; its range is checked at load."""

from mpy_et import dtypes
from mpy_et.noalloc import mark
from portable_kernels.util import checks, loops, strided
from portable_kernels.util.emitters import HAS_NATIVE


def select_copy_int_out(x, dim, index, out):
    what = "select_copy"
    checks.is_tensor(x, what + " self")
    checks.is_tensor(out, what + " out")
    if not x.sizes:
        checks.fail("%s: cannot select from a 0-dim tensor" % what)
    d = checks.norm_dim(dim, len(x.sizes), what)
    n = x.sizes[d]
    if not isinstance(index, (int, float, str, tuple, list)) and index is not None:
        return _select_at(x, d, index, out, what)
    if not isinstance(index, int) or isinstance(index, bool) or not -n <= index < n:
        checks.fail("%s: index %r is out of range for dim %d of size %d" % (what, index, d, n))
    index %= n
    st = strided.view_strides(x)
    sizes = list(x.sizes[:d]) + list(x.sizes[d + 1 :])
    checks.out_shape(out, sizes, what)
    return strided.gather(x, out, sizes, list(st[:d]) + list(st[d + 1 :]), index * st[d])


def _select_at(x, d, index, out, what):
    """(step, ctx) of a select at a loop's counter."""
    from mpy_et.loops import index_range

    index_range(index, x.sizes[d], what)
    st = strided.view_strides(x)
    sizes = list(x.sizes[:d]) + list(x.sizes[d + 1 :])
    checks.out_shape(out, sizes, what)
    checks.same_dtype(x, out)
    if out.numel == 0:
        return None
    if HAS_NATIVE and loops.numel(x.sizes[:d]) == 1:  # one run of x: copied in viper
        from portable_kernels.native import copy_runs_viper

        item = dtypes.itemsize(x.dtype)
        return copy_runs_viper.prepare_at(x, out, out.nbytes, 0, 0, index.v, st[d] * item, 0)
    units = strided.units_of(x.dtype)
    strides = [s * units for s in st[:d]] + [s * units for s in st[d + 1 :]] + [1]
    plan, n, step, _ = loops.rows_plan(tuple(sizes) + (units,), strides, [0] * len(strides))
    rctx = (strided.raw_view(x)[0], strided.raw_view(out)[0], n, step, index.v, st[d] * units)
    if plan[7] == 1:  # one row (a select along dim 0): the row is the step
        return _one_row_at, rctx
    return loops.run_rows, loops.rows_ctx(_row_at, rctx, plan)


def _one_row_at(rctx):
    """Step: the one row of a select at the counter. Does not allocate."""
    x, o, n, step, k, stride = rctx
    ia = k[0] * stride
    for j in range(n):
        o[j] = x[ia]
        ia += step


def _row_at(rctx, ia, ib, io):
    """Row of the select: out[io + j] = x[k * stride + ia + j * step], k the counter."""
    x, o, n, step, k, stride = rctx
    ia += k[0] * stride
    for j in range(io, io + n):
        o[j] = x[ia]
        ia += step


mark(_one_row_at)

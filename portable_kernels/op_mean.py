"""aten::mean.out: sum over dims divided by their element count (sum's loop).
Floating result only (dtype, if given, must be floating and out's dtype);
an empty reduction gives NaN, as torch. A float32 mean over contiguous rows
is a soft-float (or FPU) product where the port has native code
(op_mm.row_means)."""

import math

from mpy_et import dtypes
from portable_kernels.op_sum import reduce_step, reduction
from portable_kernels.util import checks
from portable_kernels.util.emitters import HAS_NATIVE


def mean_out(x, dim, keepdim, dtype, out):
    what = "mean"
    ko, ro, nr = reduction(x, dim, keepdim, out, what)
    compute = x.dtype if dtype is None else dtype
    if compute not in dtypes.FLOATING:
        checks.fail("%s: needs a floating input or dtype, got input %s, dtype %r" % (what, checks.shape_str(x), dtype), checks.INVALID_TYPE)
    if out.dtype != compute:
        checks.fail("%s: out is %s; expected %s" % (what, checks.shape_str(out), dtypes.name(compute)), checks.INVALID_TYPE)
    if nr == 0:
        return _fill, (out.data, out.numel, math.nan)
    step, ctx = reduce_step(x, out, ko, ro, nr, 0.0, nr)
    if HAS_NATIVE and ro is None and nr > 1 and ko == list(range(0, len(ko) * nr, nr)) and x.dtype == dtypes.FLOAT:
        # contiguous rows (a mean over the last dims): a product with a column of 1 / n
        from portable_kernels import op_mm

        return op_mm.row_means(x, out, len(ko), nr, nr, step, ctx)
    return step, ctx


def _fill(ctx):
    o, n, v = ctx
    for i in range(n):
        o[i] = v

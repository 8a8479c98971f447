"""aten::mean.out: sum over dims divided by their element count (sum's loop).
Floating result only (dtype, if given, must be floating and out's dtype);
an empty reduction gives NaN, as torch."""

import math

from mpy_et import dtypes
from portable_kernels.op_sum import reduce_step, reduction
from portable_kernels.util import checks


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
    return reduce_step(x, out, ko, ro, nr, 0.0, nr)


def _fill(ctx):
    o, n, v = ctx
    for i in range(n):
        o[i] = v

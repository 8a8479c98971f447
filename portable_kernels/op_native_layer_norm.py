"""aten::native_layer_norm.out: normalise over the trailing
normalized_shape dims: out0 = (x - mean) * rstd * weight + bias, with
rstd = 1 / sqrt(biased var + eps); out1 = mean and out2 = rstd, of shape
x.shape[:axis] + [1] * len(normalized_shape) (either may be empty).
Float only.

Per row: one pass for the mean, one for the variance (two passes keep the
variance exact where a single sum of squares cancels), one to write.
Sums are Python floats (double on most ports). Allocation in the step:
boxed floats only.
"""

import math

from mpy_et import dtypes
from portable_kernels import checks, loops

_FLOATS = (dtypes.FLOAT, dtypes.DOUBLE)


def native_layer_norm_out(x, normalized_shape, weight, bias, eps, out0, out1, out2):
    what = "native_layer_norm"
    checks.is_tensor(x, what + " input")
    checks.dtype_in(x, _FLOATS, what + " input")
    if not isinstance(normalized_shape, (list, tuple)) or not normalized_shape:
        checks.fail("%s: normalized_shape must be a non-empty list of ints, got %r" % (what, normalized_shape))
    norm = checks.int_list(normalized_shape, len(normalized_shape), what + " normalized_shape", 0)
    k = len(norm)
    if k > len(x.sizes) or tuple(x.sizes[len(x.sizes) - k :]) != norm:
        checks.fail("%s: normalized_shape %s does not match the trailing dims of input %s" % (what, list(norm), checks.shape_str(x)))
    m = loops.numel(norm)
    for t, name in ((weight, "weight"), (bias, "bias")):
        if t is not None:
            checks.is_tensor(t, "%s %s" % (what, name))
            checks.same_dtype(x, t)
            if tuple(t.sizes) != norm:
                checks.fail("%s: %s must have shape %s, got %s" % (what, name, list(norm), checks.shape_str(t)))
    checks.number(eps, what + " eps")
    checks.is_tensor(out0, what + " out0")
    checks.same_dtype(x, out0)
    checks.out_shape(out0, x.sizes, what + " out0")
    stat_shape = tuple(x.sizes[: len(x.sizes) - k]) + (1,) * k
    stats = []
    for t, name in ((out1, "out1"), (out2, "out2")):
        checks.is_tensor(t, "%s %s" % (what, name))
        if t.numel == 0 and tuple(t.sizes) != stat_shape:
            stats.append(None)
            continue
        checks.same_dtype(x, t)
        checks.out_shape(t, stat_shape, "%s %s" % (what, name))
        stats.append(t.data)
    rows = loops.numel(x.sizes[: len(x.sizes) - k])
    if rows == 0:
        return None
    if m == 0:
        checks.not_supported("%s: normalizing over zero elements (input %s)" % (what, checks.shape_str(x)))
    w = weight.data if weight is not None else None
    b = bias.data if bias is not None else None
    return _layer_norm, (x.data, out0.data, rows, m, float(eps), w, b, stats[0], stats[1])


def _layer_norm(ctx):
    x, o, rows, m, eps, w, b, save_mean, save_rstd = ctx
    sqrt = math.sqrt
    i = 0
    for r in range(rows):
        end = i + m
        s = 0.0
        for q in range(i, end):
            s += x[q]
        mean = s / m
        s = 0.0
        for q in range(i, end):
            d = x[q] - mean
            s += d * d
        rstd = 1.0 / sqrt(s / m + eps)
        if w is None:
            if b is None:
                for q in range(i, end):
                    o[q] = (x[q] - mean) * rstd
            else:
                j = 0
                for q in range(i, end):
                    o[q] = (x[q] - mean) * rstd + b[j]
                    j += 1
        elif b is None:
            j = 0
            for q in range(i, end):
                o[q] = (x[q] - mean) * rstd * w[j]
                j += 1
        else:
            j = 0
            for q in range(i, end):
                o[q] = (x[q] - mean) * rstd * w[j] + b[j]
                j += 1
        if save_mean is not None:
            save_mean[r] = mean
        if save_rstd is not None:
            save_rstd[r] = rstd
        i = end

"""aten::_native_batch_norm_legit_no_training.out: inference batch norm
over dim 1 of (N, C, ...) with the running statistics:
out0 = (x - mean) / sqrt(var + eps) * weight + bias.

out1 / out2 (saved mean and inverse std) are empty in inference, as torch
returns them (its out variant resizes them to [0]). Float only.

The step first turns the C statistics into a scale and shift per channel
(they are read every run, so non-constant statistics work too), then
walks x linearly: one multiply-add per element. Allocation in the step:
boxed floats only.
"""

import math

from mpy_et import dtypes
from portable_kernels.util import checks, float_loops, loops

_FLOATS = (dtypes.FLOAT, dtypes.DOUBLE)


def native_batch_norm_legit_no_training_out(x, weight, bias, mean, var, momentum, eps, out0, out1, out2):
    what = "_native_batch_norm_legit_no_training"
    checks.is_tensor(x, what + " input")
    checks.dtype_in(x, _FLOATS, what + " input")
    if len(x.sizes) < 2:
        checks.fail("%s: input must have at least 2 dims (N, C, ...), got %s" % (what, checks.shape_str(x)))
    c = x.sizes[1]
    params = []
    for t, name in ((weight, "weight"), (bias, "bias"), (mean, "running_mean"), (var, "running_var")):
        if t is None and name in ("weight", "bias"):
            params.append(None)
            continue
        checks.is_tensor(t, "%s %s" % (what, name))
        checks.dtype_in(t, _FLOATS, "%s %s" % (what, name))
        if tuple(t.sizes) != (c,):
            checks.fail(
                "%s: %s must be [%d] (the channels of input %s), got %s" % (what, name, c, checks.shape_str(x), checks.shape_str(t))
            )
        params.append(t.data)
    checks.number(momentum, what + " momentum")
    checks.number(eps, what + " eps")
    if eps < 0:
        checks.fail("%s: eps must be >= 0, got %r" % (what, eps))
    checks.is_tensor(out0, what + " out0")
    checks.same_dtype(x, out0)
    checks.out_shape(out0, x.sizes, what + " out0")
    for t, name in ((out1, "out1"), (out2, "out2")):
        checks.is_tensor(t, "%s %s" % (what, name))
        if t.numel:
            checks.fail("%s: %s (saved statistics) must be empty in inference, got %s" % (what, name, checks.shape_str(t)))
    if x.numel == 0:
        return None
    inner = loops.numel(x.sizes[2:])
    ctx = (x.data, out0.data, x.sizes[0], c, inner, float(eps), [0.0] * c, [0.0] * c) + tuple(params)
    return _batch_norm, ctx


def _batch_norm(ctx):
    x, o, n, c, inner, eps, scale, shift, w, b, mean, var = ctx
    sqrt = math.sqrt
    for k in range(c):
        inv = 1.0 / sqrt(var[k] + eps)
        s = inv if w is None else w[k] * inv
        scale[k] = s
        shift[k] = (0.0 if b is None else b[k]) - mean[k] * s
    i = 0
    for _ in range(n):
        for k in range(c):
            s = scale[k]
            t = shift[k]
            for q in range(i, i + inner):
                o[q] = x[q] * s + t
            i += inner
    float_loops.release(scale)
    float_loops.release(shift)

"""aten::native_group_norm.out: (N, C, *) normalised over each of `group`
groups of C / group channels: out0 = (x - mean) * rstd * weight[c] +
bias[c]; out1 = mean and out2 = rstd, of shape (N, group) (either may be
empty). Float only.

Per group: one pass for the mean, one for the variance (two passes keep
it exact), one to write, with the channel's scale and shift hoisted.
Allocation in the step: boxed floats only.
"""

import math

from mpy_et import dtypes
from portable_kernels.util import checks


def native_group_norm_out(x, weight, bias, n, c, hxw, group, eps, out0, out1, out2):
    what = "native_group_norm"
    checks.is_tensor(x, what + " input")
    checks.dtype_in(x, dtypes.FLOATING, what + " input")
    for v, name in ((n, "N"), (c, "C"), (hxw, "HxW"), (group, "group")):
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            checks.fail("%s: %s must be a non-negative int, got %r" % (what, name, v))
    if len(x.sizes) < 2 or x.sizes[0] != n or x.sizes[1] != c or x.numel != n * c * hxw:
        checks.fail("%s: input %s does not match N=%d, C=%d, HxW=%d" % (what, checks.shape_str(x), n, c, hxw))
    if group < 1 or c % group:
        checks.fail("%s: channels (%d) must be divisible by group (%d)" % (what, c, group))
    for t, name in ((weight, "weight"), (bias, "bias")):
        if t is not None:
            checks.is_tensor(t, "%s %s" % (what, name))
            checks.same_dtype(x, t)
            if tuple(t.sizes) != (c,):
                checks.fail("%s: %s must be [%d], got %s" % (what, name, c, checks.shape_str(t)))
    checks.number(eps, what + " eps")
    checks.is_tensor(out0, what + " out0")
    checks.same_dtype(x, out0)
    checks.out_shape(out0, x.sizes, what + " out0")
    stats = []
    for t, name in ((out1, "out1"), (out2, "out2")):
        checks.is_tensor(t, "%s %s" % (what, name))
        if t.numel == 0 and tuple(t.sizes) != (n, group):
            stats.append(None)
            continue
        checks.same_dtype(x, t)
        checks.out_shape(t, (n, group), "%s %s" % (what, name))
        stats.append(t.data)
    if x.numel == 0:
        return None
    w = weight.data if weight is not None else None
    b = bias.data if bias is not None else None
    return _group_norm, (x.data, out0.data, n * group, c // group, c, hxw, float(eps), w, b, stats[0], stats[1])


def _group_norm(ctx):
    x, o, groups, cpg, c, hxw, eps, w, b, save_mean, save_rstd = ctx
    sqrt = math.sqrt
    m = cpg * hxw
    i = 0
    k = 0  # channel, for weight and bias
    for r in range(groups):
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
        for _ in range(cpg):
            scale = rstd * (w[k] if w is not None else 1.0)
            shift = (b[k] if b is not None else 0.0) - mean * scale
            for q in range(i, i + hxw):
                o[q] = x[q] * scale + shift
            i += hxw
            k += 1
            if k == c:
                k = 0
        if save_mean is not None:
            save_mean[r] = mean
        if save_rstd is not None:
            save_rstd[r] = rstd

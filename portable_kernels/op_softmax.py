"""aten::_softmax.out, numerically stable: exp(x - max) along dim, any dim.
Float only. Allocation in the step: boxed floats only."""

import math

from mpy_et import dtypes
from portable_kernels import checks, loops

_FLOATS = (dtypes.FLOAT, dtypes.DOUBLE)


def softmax_out(x, dim, half_to_float, out):
    geom = check_softmax(x, dim, half_to_float, out, "_softmax")
    return _softmax, (x.data, out.data) + geom + (math.exp,)


def check_softmax(x, dim, half_to_float, out, what):
    """Shared by _log_softmax: returns (outer, span, inner) with span = dim size * inner."""
    checks.is_tensor(x, what + " self")
    checks.dtype_in(x, _FLOATS, what + " self")
    checks.is_tensor(out, what + " out")
    checks.same_dtype(x, out)
    if half_to_float:
        checks.not_supported("%s: half_to_float is not supported (no float16 tensors)" % what)
    d = checks.norm_dim(dim, len(x.sizes), what)
    checks.out_shape(out, x.sizes, what)
    sizes = x.sizes if x.sizes else (1,)
    inner = loops.numel(sizes[d + 1 :])
    return loops.numel(sizes[:d]), sizes[d] * inner, inner


def _softmax(ctx):
    x, o, outer, span, inner, exp = ctx
    for b in range(0, outer * span, span):
        for s in range(b, b + inner):
            e = s + span
            m = x[s]
            for i in range(s + inner, e, inner):
                v = x[i]
                if v > m:
                    m = v
            t = 0.0
            for i in range(s, e, inner):
                v = exp(x[i] - m)
                o[i] = v
                t += v
            for i in range(s, e, inner):
                o[i] = o[i] / t

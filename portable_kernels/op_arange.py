"""aten::arange.out / arange.start_out: start, start + step, ... below end
(above, for a negative step), in out's dtype. Integer and float outs; the
float values are start + i * step computed in double precision, as torch.
Float steps box floats; integer steps do not allocate."""

import math

from mpy_et import dtypes
from portable_kernels.util import checks
from portable_kernels.util.fill import units

_OUTS = (dtypes.FLOAT, dtypes.DOUBLE, dtypes.INT, dtypes.SHORT, dtypes.CHAR, dtypes.BYTE, dtypes.LONG)


def arange_out(end, out):
    return arange_start_out(0, end, 1, out)


def arange_start_out(start, end, step, out):
    what = "arange"
    for v, name in ((start, "start"), (end, "end"), (step, "step")):
        checks.number(v, "%s %s" % (what, name))
        if isinstance(v, float) and not math.isfinite(v):
            checks.fail("%s: %s must be finite, got %r" % (what, name, v))
    checks.is_tensor(out, what + " out")
    checks.dtype_in(out, _OUTS, what + " out")
    if step == 0:
        checks.fail("%s: step must be nonzero" % what)
    if (end - start) * step < 0:
        checks.fail("%s: upper bound and larger bound inconsistent with step sign (start %r, end %r, step %r)" % (what, start, end, step))
    n = int(math.ceil((end - start) / step))
    checks.out_shape(out, (n,), what)
    floating = out.dtype in dtypes.FLOATING
    if not floating and any(isinstance(v, float) for v in (start, step)) and (start != int(start) or step != int(step)):
        checks.fail(
            "%s: non-integer start %r or step %r for an integer out %s" % (what, start, step, checks.shape_str(out)), checks.INVALID_TYPE
        )
    if n == 0:
        return None
    if out.dtype == dtypes.LONG:
        last = start + (n - 1) * step
        if not (-(1 << 31) <= min(start, last) and max(start, last) < 1 << 31):
            checks.not_supported("%s: int64 values beyond int32 are not supported" % what)
        view = units(out, 0)[0]
        return _arange_long, (view, n, int(start), int(step))
    if floating:
        return _arange, (out.data, n, float(start), float(step))
    return _arange, (out.data, n, int(start), int(step))


def _arange(ctx):
    o, n, start, step = ctx
    for i in range(n):
        o[i] = start + i * step


def _arange_long(ctx):
    o, n, start, step = ctx
    k = 0
    v = start
    for _ in range(n):
        o[k] = v
        o[k + 1] = -1 if v < 0 else 0
        v += step
        k += 2

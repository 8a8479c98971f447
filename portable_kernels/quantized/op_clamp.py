"""mpy_et_quant::clamp.out: int8 clamp to [min, max] (a relu or relu6 that
could not be folded into its producer; same scale in and out). Does not
allocate in the step."""

from mpy_et import noalloc
from portable_kernels.quantized.requant import check_int8, zero_point
from portable_kernels.util import checks


def clamp_out(x, lo, hi, out):
    what = "mpy_et_quant::clamp"
    check_int8(x, what + " input")
    check_int8(out, what + " out")
    checks.same_shape(x, out, what)
    lo, hi = zero_point(lo, what + " min"), zero_point(hi, what + " max")
    if lo > hi:
        checks.fail("%s: min %d > max %d" % (what, lo, hi))
    if out.numel == 0:
        return None
    return _clamp, (x.data, out.data, out.numel, lo, hi)


def _clamp(ctx):
    xd, od, n, lo, hi = ctx
    for i in range(n):
        v = xd[i]
        od[i] = lo if v < lo else (hi if v > hi else v)


noalloc.mark(_clamp)

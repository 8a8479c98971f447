"""aten::var.correction_out: sum((x - mean)^2) / max(0, N - correction) over
dims (None or [] is every dim), keepdim as torch; what x.var(), x.std()
(then sqrt) and unbiased=False export to. Two passes in the port's float
(doubles on CPython and unix/wasm MicroPython), as torch accumulates in
double. N - correction <= 0 gives inf (NaN for a zero sum), N == 0 NaN.
Float only; allocation: boxed floats only."""

from portable_kernels.op_sum import reduction
from portable_kernels.util import checks
from portable_kernels.util.floats import INF, NAN


def var_correction_out(x, dim, correction, keepdim, out):
    what = "var.correction"
    checks.is_tensor(x, what + " self")
    checks.dtype_in(x, checks.FLOATS, what + " self")
    ko, ro, nr = reduction(x, dim, keepdim, out, what, checks.FLOATS)
    checks.same_dtype(x, out)
    c = 1 if correction is None else checks.number(correction, what + " correction")
    if nr == 0:
        return _fill, (out.data, len(ko), NAN)
    d = nr - c
    return _var, (x.data, out.data, ko, range(nr) if ro is None else ro, 1.0 / nr, 1.0 / d if d > 0 else INF)


def _var(ctx):
    x, o, ko, ro, inv_n, inv_d = ctx
    k = 0
    for b in ko:
        s = 0.0
        for r in ro:
            s += x[b + r]
        mean = s * inv_n
        ss = 0.0
        for r in ro:
            v = x[b + r] - mean
            ss += v * v
        o[k] = ss * inv_d  # inv_d inf: inf, or NaN for ss == 0
        k += 1


def _fill(ctx):
    o, n, v = ctx
    for i in range(n):
        o[i] = v

"""mpy_et_quant::log_softmax.out: int8 log-probabilities along one dim,
integers only (host_tools/quantize/ref_log_softmax.py defines them): per row
m = max(x), S = sum of T[m - x] (the softmax table, T[0] = 2**K), e the
position of S's leading one, and
    out = clamp(zo + ((2**F >> 1) - A[m - x] - L) >> F, -128, 127)
    L = (e - K) * LN2 + LN[i] + ((LN[i + 1] - LN[i]) * r >> 8)
with A, LN, LN2 from log_table and i, r the 8 + 8 bits of S after its
leading one. The load checks the tables' bounds: every value stays a small
int on 32-bit ports, so the step does not allocate.
"""

from mpy_et import dtypes, noalloc
from portable_kernels.quantized.requant import check_int8, zero_point
from portable_kernels.util import checks


def log_softmax_out(x, exp_table, log_table, dim, frac_bits, out_zero_point, out):
    what = "mpy_et_quant::log_softmax"
    check_int8(x, what + " input")
    check_int8(out, what + " out")
    checks.same_shape(x, out, what)
    for t, name, n in ((exp_table, "exp_table", 256), (log_table, "log_table", 514)):
        checks.is_tensor(t, "%s %s" % (what, name))
        checks.dtype_in(t, (dtypes.INT,), "%s %s" % (what, name))
        if tuple(t.sizes) != (n,):
            checks.fail("%s: %s must be int32[%d], got %s" % (what, name, n, checks.shape_str(t)))
    d = checks.norm_dim(dim, len(x.sizes), what)
    if not isinstance(frac_bits, int) or not 0 <= frac_bits <= 16:
        checks.fail("%s: frac_bits must be an int in 0..16, got %r" % (what, frac_bits))
    zo = zero_point(out_zero_point, what + " out_zero_point")
    n = x.sizes[d] if x.sizes else 1
    et = exp_table.data
    top = et[0]
    k = 0
    while (1 << k) < top:
        k += 1
    if top != 1 << k or k < 8 or top * max(n, 1) > 1 << 29 or any(not 0 <= et[i] <= top for i in range(256)):
        checks.fail("%s: exp_table must start at 2**K (K >= 8) with entries in 0..2**K and %d of them within 2**29" % (what, n))
    lt = log_table.data
    if any(not 0 <= lt[i] < 1 << 29 for i in range(514)):
        checks.fail("%s: log_table entries must lie in 0..2**29" % what)
    if out.numel == 0:
        return None
    inner = 1
    for s in x.sizes[d + 1 :]:
        inner *= s
    outer = x.numel // (n * inner)
    return _step, (x.data, out.data, et, lt, outer, n, inner, k, frac_bits, zo)


def _step(ctx):
    xd, od, t, lt, outer, n, inner, k, f, zo = ctx
    half = (1 << f) >> 1
    ln2 = lt[513]
    row = 0
    for _ in range(outer):
        for j in range(inner):
            p = row + j
            m = -128
            i = p
            for _ in range(n):
                v = xd[i]
                if v > m:
                    m = v
                i += inner
            s = 0
            i = p
            for _ in range(n):
                s += t[m - xd[i]]
                i += inner
            e = 0
            v = s
            while v > 1:
                v >>= 1
                e += 1
            li = s >> (e - 8)  # 256 + the 8 bits after the leading one: LN[i] sits at 256 + i
            r = (s >> (e - 16) if e >= 16 else s << (16 - e)) & 255
            lo = lt[li]
            big_l = (e - k) * ln2 + lo + (((lt[li + 1] - lo) * r) >> 8)
            i = p
            for _ in range(n):
                q = zo + ((half - lt[m - xd[i]] - big_l) >> f)
                od[i] = -128 if q < -128 else (127 if q > 127 else q)
                i += inner
        row += n * inner


noalloc.mark(_step)

"""mpy_et_quant::layer_norm.out: int8 layer norm over the last dim, integers only.

The arithmetic of host_tools/quantize/ref_norm.py, step for step: per row
S1 = sum(x - zx), S2 = sum((x - zx)^2), D = n*S2 - S1*S1; the largest j <= 15
with D*4^j + E_j < 2^30 (E_j: eps_table); r = isqrt(D*4^j + E_j); per channel
U = floor((n*(x - zx) - S1) * 2^j * 2^11 / r) and
out = clamp(zo + requant(sign_c * U + B_c), -128, 127) with (sign_c, B_c) =
offsets[c] and (M, s, L) = requant[c]. n <= 128 and the table's bounds are
checked at load, so every value stays a small int on 32-bit ports and the
step does not allocate (viper: native/q_layer_norm_viper.py).
"""

from mpy_et import dtypes, noalloc
from portable_kernels.quantized import requant as q_requant
from portable_kernels.quantized.requant import channel_params, check_int8, requant, zero_point
from portable_kernels.util import checks

MAX_N = 128
F = 11
TOP = 0x3FFFFFFF  # 2**30 - 1, the largest small int on 32-bit ports


def layer_norm_out(x, requant_t, offsets, eps_table, x_zero_point, out_zero_point, out):
    what = "mpy_et_quant::layer_norm"
    check_int8(x, what + " input")
    check_int8(out, what + " out")
    checks.same_shape(x, out, what)
    if not x.sizes:
        checks.fail("%s: input must have at least one dim" % what)
    n = x.sizes[-1]
    if not 1 <= n <= MAX_N:
        checks.fail("%s: normalized size %d outside 1..%d (sums would leave 30 bits)" % (what, n, MAX_N))
    channel_params(requant_t, n, what)
    checks.is_tensor(offsets, what + " offsets")
    checks.dtype_in(offsets, (dtypes.INT,), what + " offsets")
    if tuple(offsets.sizes) != (n, 2):
        checks.fail("%s: offsets must be int32[%d, 2] (sign, bias per channel), got %s" % (what, n, checks.shape_str(offsets)))
    od = offsets.data
    for c in range(n):
        sg, b = od[2 * c], od[2 * c + 1]
        if sg not in (1, -1) or not -(1 << 29) < b < 1 << 29:
            checks.fail("%s: offsets[%d] = (%d, %d): sign must be 1 or -1 and |bias| < 2**29" % (what, c, sg, b))
    checks.is_tensor(eps_table, what + " eps_table")
    checks.dtype_in(eps_table, (dtypes.INT,), what + " eps_table")
    if tuple(eps_table.sizes) != (16,):
        checks.fail("%s: eps_table must be int32[16], got %s" % (what, checks.shape_str(eps_table)))
    et = [eps_table.data[j] for j in range(16)]
    if not 0 <= et[0] < 1 << 28 or any(not 0 <= v <= TOP for v in et):
        checks.fail("%s: eps_table entries must lie in 0..2**30-1 with the first below 2**28" % what)
    zx = zero_point(x_zero_point, what + " x_zero_point")
    zo = zero_point(out_zero_point, what + " out_zero_point")
    if out.numel == 0:
        return None
    rows = out.numel // n
    if q_requant.use_viper:
        from portable_kernels.native import q_layer_norm_viper

        return q_layer_norm_viper.prepare(x, out, rows, n, zx, zo, et, requant_t, offsets)
    return _step, (x.data, out.data, rows, n, zx, zo, et, od, requant_t.data)


def _step(ctx):
    xd, od, rows, n, zx, zo, et, off, rq = ctx  # off, rq: the constants, read where they lie
    base = 0
    for _ in range(rows):
        s1 = 0
        s2 = 0
        for i in range(base, base + n):
            d = xd[i] - zx
            s1 += d
            s2 += d * d
        big_d = n * s2 - s1 * s1
        j = 0
        while j < 15 and big_d <= (TOP - et[j + 1]) >> (2 * j + 2):
            j += 1
        dz = (big_d << (2 * j)) + et[j]
        r = 1
        if dz > 1:  # floor(sqrt(dz)) by Newton's method from above (dz < 2**30)
            r = 32768
            while True:
                y = (r + dz // r) >> 1
                if y >= r:
                    break
                r = y
        for c in range(n):
            u = (((n * (xd[base + c] - zx) - s1) << j) << F) // r
            q = zo + requant(off[2 * c] * u + off[2 * c + 1], rq[3 * c], rq[3 * c + 1], rq[3 * c + 2])
            od[base + c] = -128 if q < -128 else (127 if q > 127 else q)
        base += n


noalloc.mark(_step)

"""cortex_m::quantized_div.out: int8 (or int16) quotient as ExecuTorch's
reference computes it in float32: q = (a - a_zp) / (b - b_zp) (0 where the
divisor is 0), out = clamp(round(q * float32(output_scale)) + zp). Each
rounding is done in exact integers (cortex_m/f32.py), so the result is bit
for bit torch's on every port; the step uses Python ints past 2**30 and is
not marked allocation-free."""

from mpy_et import dim_orders, dtypes
from portable_kernels.cortex_m import binary, f32
from portable_kernels.util import checks


def quantized_div_out(a, a_zp, b, b_zp, out_zp, out_scale, out):
    what = "cortex_m::quantized_div"
    for t, name in ((a, "self"), (b, "other"), (out, "out")):
        checks.is_tensor(t, what + " " + name)
        checks.dtype_in(t, (dtypes.CHAR, dtypes.SHORT), what + " " + name)
    checks.same_dtype(a, b, out)
    if tuple(a.sizes) != tuple(b.sizes):
        checks.fail("%s: shapes %s and %s must be equal (no broadcasting)" % (what, checks.shape_str(a), checks.shape_str(b)))
    geo = binary.plan(a, b, out, what)
    checks.number(out_scale, what + " output_scale")
    lo, hi = (-128, 127) if a.dtype == dtypes.CHAR else (-32768, 32767)
    if out.numel == 0:
        return None
    return _div, (a.data, b.data, out.data, geo, a_zp, b_zp, f32.of_float(out_scale), out_zp, lo, hi)


def _div(ctx):
    ad, bd, od, geo, za, zb, s, zp, lo, hi = ctx
    sizes, sa, sb, so = geo
    for i in range(sizes[0]):
        for j in range(sizes[1]):
            for k in range(sizes[2]):
                pa = i * sa[0] + j * sa[1] + k * sa[2]
                pb = i * sb[0] + j * sb[1] + k * sb[2]
                po = i * so[0] + j * so[1] + k * so[2]
                for m in range(sizes[3]):
                    d = bd[pb + m * sb[3]] - zb
                    q = 0
                    if d:
                        q = f32.round_int(f32.mul(f32.div(f32.round_f32(ad[pa + m * sa[3]] - za, 0), (d, 0)), s))
                    v = q + zp
                    od[po + m * so[3]] = lo if v < lo else hi if v > hi else v


dim_orders.mark(quantized_div_out)

"""cortex_m::softmax.out: int8 softmax as ExecuTorch's reference defines it:
x_real = (x - input_zp) * input_scale, input_scale from the multiplier and
shift (5 integer bits, arm_softmax_s8's convention); out = clamp(round(
softmax(x_real) * 256) - 128). Rows along `dim`, through strides.

The reference is torch.softmax in float32; this step uses the port's floats
(exp of the differences to the row's max, in double where the port has
doubles): results agree with ExecuTorch's except where a value lies within
float32 error of a rounding tie (tests/test_cortex_m_ops.py counts them).
The step computes floats, so it is not marked allocation-free.
"""

import math

from mpy_et import dim_orders
from portable_kernels.cortex_m import conv, layout
from portable_kernels.util import checks


def softmax_out(x, dim, input_zp, output_zp, input_mult, input_shift, diff_min, out):
    what = "cortex_m::softmax"
    conv.check_q(x, what + " input")
    conv.check_q(out, what + " out")
    checks.same_shape(x, out, what)
    nd = len(x.sizes)
    d = checks.norm_dim(dim, nd, what)
    if output_zp != -128:
        checks.fail("%s: output_zero_point %r must be -128 (scale 1/256)" % (what, output_zp))
    scale = math.ldexp(input_mult / 2147483648.0, input_shift) / (1 << 26)
    if not scale > 0:
        checks.fail("%s: multiplier %r and shift %r give a non-positive input scale" % (what, input_mult, input_shift))
    xs = layout.strides(x)
    os_ = layout.strides(out)
    n = x.sizes[d]
    if out.numel == 0 or n == 0:
        return None
    others = [k for k in range(nd) if k != d]
    rows = []
    for r in range(x.numel // n):
        xi = oi = 0
        rem = r
        for k in range(len(others) - 1, -1, -1):
            i = rem % x.sizes[others[k]]
            rem //= x.sizes[others[k]]
            xi += i * xs[others[k]]
            oi += i * os_[others[k]]
        rows.append((xi, oi))
    return _softmax, (x.data, out.data, rows, n, xs[d], os_[d], input_zp, scale, [0.0] * n)


def _softmax(ctx):
    xd, od, rows, n, xs, os_, zp, scale, e = ctx
    for xi, oi in rows:
        m = xd[xi]
        for i in range(1, n):
            v = xd[xi + i * xs]
            if v > m:
                m = v
        s = 0.0
        for i in range(n):
            e[i] = math.exp((xd[xi + i * xs] - m) * scale)
            s += e[i]
        for i in range(n):
            v = _round_even(e[i] / s * 256.0) - 128
            od[oi + i * os_] = -128 if v < -128 else 127 if v > 127 else v


def _round_even(v):
    f = math.floor(v)
    r = v - f
    q = int(f)
    if r > 0.5 or (r == 0.5 and q & 1):
        q += 1
    return q


dim_orders.mark(softmax_out)

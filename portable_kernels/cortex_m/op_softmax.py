"""cortex_m::softmax.out: int8 softmax, bit for bit as ExecuTorch's reference.

The reference (executorch.backends.cortex_m.ops.operators.softmax_impl) is
torch float32: x = fl(fl(q - input_zp) * fl(scale)), scale from the
multiplier and shift (5 integer bits, arm_softmax_s8's convention);
p = torch.softmax(x, dim); out = clamp(round_half_even(p * 256) - 128).
Its float32 arithmetic decides every output that sits near a rounding tie,
so each step replays torch's CPU kernel in exact float32 (cortex_m/f32.py,
f32_exp.py), the same on every port:
- dim is the last dim (torch's _vec_softmax_lastdim): d = fl(x - max);
  e = Sleef expf_u10(d); the sum in 16 lanes (AVX-512 vectors: lane j
  sums e[j], e[j+16], ..., then the lanes pairwise at distance 8, 4, 2, 1;
  a row shorter than 16 sums in order); p = fl(e * fl(1 / sum)).
- another dim (torch's softmax_kernel): e = glibc expf(d), summed in
  order, p = fl(e / sum).
The lane width is the reference host's (torch.backends.cpu.
get_cpu_capability() "AVX512"; an AVX2 host sums in 8 lanes); the last-dim
rows of ExecuTorch's Cortex-M softmax (contiguous, or channels-last over
the channels) are what it emits.
The replay costs ~300x a softmax in port floats, so each row is first
computed in port floats, and replayed only when an output lies within a
bound on both computations' errors (_slack) of a rounding tie: elsewhere
both round the same way. Ports floats and ints beyond 2**30 allocate: the
step is not marked allocation-free.
"""

import math

from mpy_et import dim_orders
from mpy_et.port import const
from portable_kernels.cortex_m import conv, f32, f32_exp, layout
from portable_kernels.util import checks

_LANES = const(16)


def softmax_out(x, dim, input_zp, output_zp, input_mult, input_shift, diff_min, out):
    what = "cortex_m::softmax"
    conv.check_q(x, what + " input")
    conv.check_q(out, what + " out")
    checks.same_shape(x, out, what)
    nd = len(x.sizes)
    d = checks.norm_dim(dim, nd, what)
    if output_zp != -128:
        checks.fail("%s: output_zero_point %r must be -128 (scale 1/256)" % (what, output_zp))
    if input_mult <= 0:
        checks.fail("%s: multiplier %r and shift %r give a non-positive input scale" % (what, input_mult, input_shift))
    scale = f32.round_f32(input_mult, input_shift - 57)  # fl(mult / 2**31 * 2**shift / 2**26)
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
    last = d == nd - 1
    fscale = math.ldexp(input_mult / 2147483648.0, input_shift - 26)
    slack = _slack(n, fscale)
    ctx = (x.data, out.data, n, xs[d], os_[d], input_zp, scale, [None] * n, [None] * _LANES, last)
    return _softmax, (ctx, rows, fscale, slack, [0.0] * n)


def _port_eps():
    """The port float's relative precision (2**-52 with doubles, ~2**-22 with
    CircuitPython's 30-bit floats)."""
    eps = 1.0
    while 1.0 + eps / 2 != 1.0:
        eps /= 2
    return eps


def _slack(n, fscale):
    """A bound on |256 p - 256 p_reference| / (256 p) over a row of n: the
    reference's float32 errors (d = fl(fl(a s) - fl(b s)) with |a|, |b| <=
    255 and |d| <= 104, an exp within 1 ulp, n roundings of the sum, the
    reciprocal and the product) plus the same for port floats (exps within
    4 ulp), doubled for p = e / sum; ulp = 2**-23."""
    u = 1.0 / 8388608
    eps = _port_eps()
    return 2 * ((n + 8) * (u + 4 * eps) + (512 * fscale + 128) * (u + eps))


def _softmax(args):
    ctx, rows, fscale, slack, f = args
    xd, od, n, xs, os_ = ctx[0], ctx[1], ctx[2], ctx[3], ctx[4]
    exp = math.exp
    for xi, oi in rows:
        m = xd[xi]
        for i in range(1, n):
            v = xd[xi + i * xs]
            if v > m:
                m = v
        s = 0.0
        for i in range(n):
            f[i] = exp((xd[xi + i * xs] - m) * fscale)
            s += f[i]
        k = 256.0 / s
        for i in range(n):
            t = f[i] * k
            r = t - math.floor(t) - 0.5
            if -t * slack - 1e-6 <= r <= t * slack + 1e-6:  # near a tie: the float32 replay decides
                _replay(ctx, xi, oi)
                break
            f[i] = t
        else:
            for i in range(n):
                v = int(math.floor(f[i] + 0.5)) - 128
                od[oi + i * os_] = -128 if v < -128 else 127 if v > 127 else v


def _replay(ctx, xi, oi):
    """One row as torch computes it in float32 (module docstring), in exact ints."""
    xd, od, n, xs, os_, zp, scale, e, acc, last = ctx
    exp = f32_exp.exp_sleef if last else f32_exp.exp_glibc
    add = f32.add
    mul = f32.mul
    m = xd[xi]
    for i in range(1, n):
        v = xd[xi + i * xs]
        if v > m:
            m = v
    top = mul((m - zp, 0), scale)  # the row's float32 max (scale > 0 keeps the order)
    neg = (-top[0], top[1])
    for i in range(n):
        e[i] = exp(add(mul((xd[xi + i * xs] - zp, 0), scale), neg))
    if last:
        inv = f32.div((1, 0), _lane_sum(e, n, acc))
    else:
        s = e[0]
        for i in range(1, n):
            s = add(s, e[i])
    for i in range(n):
        p = mul(e[i], inv) if last else f32.div(e[i], s)
        v = f32.round_int((p[0], p[1] + 8)) - 128
        od[oi + i * os_] = -128 if v < -128 else 127 if v > 127 else v


def _lane_sum(e, n, acc):
    """torch's vec::reduce_all(+) over e[:n] with 16-lane vectors, in its order."""
    add = f32.add
    if n < _LANES:
        s = e[0]
        for i in range(1, n):
            s = add(s, e[i])
        return s
    for j in range(_LANES):
        acc[j] = e[j]
    for i in range(_LANES, n):
        j = i % _LANES
        acc[j] = add(acc[j], e[i])
    k = _LANES // 2
    while k:
        for j in range(k):  # lane j meets lane j + k (j ^ k); only lanes below k go on
            acc[j] = add(acc[j], acc[j + k])
        k //= 2
    return acc[0]


dim_orders.mark(softmax_out)

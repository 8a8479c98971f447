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
the channels) are what it emits. The step computes in ints beyond 2**30
(allocates on 32-bit ports), so it is not marked allocation-free.
"""

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
    return _softmax, (x.data, out.data, rows, n, xs[d], os_[d], input_zp, scale, [None] * n, [None] * _LANES, last)


def _softmax(ctx):
    xd, od, rows, n, xs, os_, zp, scale, e, acc, last = ctx
    exp = f32_exp.exp_sleef if last else f32_exp.exp_glibc
    add = f32.add
    mul = f32.mul
    for xi, oi in rows:
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

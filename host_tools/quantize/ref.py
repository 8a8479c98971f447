"""The host integer reference of mpy_et's int8 operators: exact definitions.

Every mpy_et_quant operator is defined here with torch int64 math; the
device kernels (portable_kernels/q_*.py, pure Python and viper) must give
the same bits. While computing, the reference checks that every
intermediate of the device's 32-bit-safe evaluation stays within the range
where MicroPython ints are small (|v| < 2**30, no allocation on 32-bit
ports) and viper machine words do not overflow (|v| < 2**31).

Requantization (TFLite Micro's multiplier + shift, 15-bit multiplier so the
32x32 -> 64 product splits into pieces that fit 30 bits):

    out = clamp(zp + floor((clamp(acc, -L, L) * M + 2**(s-1)) / 2**s), lo, hi)

with M in [2**14, 2**15] (M = 0 for a negligible scale; up to 2**22 when
s = 15, a multiplier >= 1), 15 <= s <= 44 and L
the accumulator beyond which the output saturates anyway (so the pre-clamp
never changes a result). Devices evaluate it as
    s <= 21: (a*M + 2**(s-1)) >> s                       (|a*M| < 2**29)
    s >= 22: (ah*M + ((al*M) >> 15) + 2**(s-16)) >> (s-15), ah = a >> 15, al = a & 0x7fff
which is exactly the same value (floor of nested divisions by powers of two).
"""

import math

import torch

SMALL = 2**30  # MicroPython small-int bound on 32-bit ports
WORD = 2**31  # viper machine word on 32-bit ports
SPLIT_FROM = 22  # shifts from here on use the split evaluation
ADD_BITS = 14  # add: input multipliers are round(s_i / max(s) * 2**14)


class QuantRangeError(ValueError):
    """An intermediate of the integer path would leave the 32-bit-safe range."""


def check_range(t, bound, what):
    if t.numel():
        m = int(t.abs().max())
        if m >= bound:
            raise QuantRangeError("%s reaches %d, beyond the 32-bit-safe bound %d" % (what, m, bound))


def requant_params(real):
    """(M, s, L) for a positive real multiplier (see the module docstring)."""
    if not real > 0 or real < 2.0**-29:
        return 0, 44, 0
    s = 14 - math.floor(math.log2(real))
    s = max(15, s)
    m = int(round(real * 2**s))
    if m > 2**15 and s > 15:  # rounding up to the next power of two
        s -= 1
        m = int(round(real * 2**s))
    if s > 44:
        return 0, 44, 0
    m = min(m, 2**22)  # real >= 128: any non-zero accumulator saturates either way
    lim = min(2**29, -(-257 * 2**s // m))
    return m, s, lim


def requantize(acc, m, s, lim, zp, lo, hi, what="requantize"):
    """The requantization above on an int64 tensor (m, s, lim broadcastable).

    Checks every intermediate of both device evaluations for 32-bit safety.
    """
    acc = acc.to(torch.int64)
    m = torch.as_tensor(m, dtype=torch.int64)
    s = torch.as_tensor(s, dtype=torch.int64)
    lim = torch.as_tensor(lim, dtype=torch.int64)
    check_range(acc, SMALL, what + " accumulator")
    a = torch.maximum(torch.minimum(acc, lim), -lim)
    exact = torch.div(a * m + (1 << (s - 1)), 1 << s, rounding_mode="floor")
    direct = s < SPLIT_FROM
    check_range(torch.where(direct, a * m + (1 << (s - 1)), 0), SMALL, what + " product")
    ah, al = a >> 15, a & 0x7FFF
    part = ah * m + ((al * m) >> 15) + (1 << (s - 16).clamp(min=0))
    check_range(torch.where(direct, 0, al * m), SMALL, what + " low product")
    check_range(torch.where(direct, 0, part), SMALL, what + " split sum")
    split = part >> (s - 15)
    assert torch.equal(torch.where(direct, exact, split), exact), "split requantization differs"
    return (exact + zp).clamp(lo, hi)


def _out_range(scale, zp, lo_real=None, hi_real=None):
    """int8 output bounds, narrowed by a folded clamp (relu: lo_real=0)."""
    lo, hi = -128, 127
    if lo_real is not None:
        lo = max(lo, int(torch.ops.quantized_decomposed.quantize_per_tensor(torch.tensor([lo_real]), scale, zp, -128, 127, torch.int8)[0]))
    if hi_real is not None:
        hi = min(hi, int(torch.ops.quantized_decomposed.quantize_per_tensor(torch.tensor([hi_real]), scale, zp, -128, 127, torch.int8)[0]))
    return lo, hi


out_range = _out_range


def requant_table(reals):
    """int32 [n, 3] tensor of (M, s, L) per output channel."""
    return torch.tensor([requant_params(float(r)) for r in reals], dtype=torch.int32).reshape(-1, 3)


def _rq(rq, shape_axis, ndim):
    view = [1] * ndim
    view[shape_axis] = -1
    r = rq.to(torch.int64)
    return r[:, 0].reshape(view), r[:, 1].reshape(view), r[:, 2].reshape(view)


def conv_acc(x, weight, bias, stride, padding, dilation, groups, x_zp):
    """int64 accumulators of an int8 convolution (NCHW or NCL), exact."""
    xs = x.to(torch.float64) - x_zp  # padding with zeros = the real value 0
    w = weight.to(torch.float64)
    conv = torch.nn.functional.conv2d if x.dim() == 4 else torch.nn.functional.conv1d
    acc = conv(xs, w, None, stride, padding, dilation, groups).round().to(torch.int64)
    return acc + bias.to(torch.int64).reshape([1, -1] + [1] * (x.dim() - 2))


def check_viper_conv(weight, bias, x_zp, what):
    """Bounds of the viper evaluation: acc = C + D - 128*Sx with unsigned
    bytes (x+128, w+128), D <= 255*255*K, C = bias - (128+zp)*sum(w)."""
    k = weight[0].numel()
    c = bias.to(torch.int64) - (128 + x_zp) * weight.to(torch.int64).reshape(weight.shape[0], -1).sum(1)
    check_range(c, 2**29, what + " folded bias (stored with a 2**29 offset)")
    # the dot of unsigned bytes alone is a small int (< 2**30) on 32-bit ports: the reference step adds it up first
    if 255 * 255 * k + 128 * 255 * k + int(c.abs().max()) >= WORD or 255 * 255 * k >= 2**30:
        raise QuantRangeError("%s: %d-term dot products overflow a 32-bit viper word" % (what, k))


def conv2d(x, weight, bias, requant, stride, padding, dilation, groups, x_zp, out_zp, out_min, out_max):
    """mpy_et_quant::conv2d (and conv1d for 3-D input): int8 out."""
    check_viper_conv(weight, bias, x_zp, "conv")
    acc = conv_acc(x, weight, bias, stride, padding, dilation, groups, x_zp)
    m, s, lim = _rq(requant, 1, acc.dim())
    return requantize(acc, m, s, lim, out_zp, out_min, out_max, "conv").to(torch.int8)


def linear(x, weight, bias, requant, x_zp, out_zp, out_min, out_max):
    """mpy_et_quant::linear: x [..., K] int8, weight [O, K] int8, bias int32 [O]."""
    check_viper_conv(weight, bias, x_zp, "linear")
    xs = x.to(torch.float64) - x_zp
    acc = (xs @ weight.to(torch.float64).t()).round().to(torch.int64) + bias.to(torch.int64)
    m, s, lim = _rq(requant, acc.dim() - 1, acc.dim())
    return requantize(acc, m, s, lim, out_zp, out_min, out_max, "linear").to(torch.int8)


def add(a, b, a_zp, a_mult, b_zp, b_mult, m, s, lim, out_zp, out_min, out_max):
    """mpy_et_quant::add: (a-zpa)*ma + (b-zpb)*mb, requantized (same shapes)."""
    acc = (a.to(torch.int64) - a_zp) * a_mult + (b.to(torch.int64) - b_zp) * b_mult
    return requantize(acc, m, s, lim, out_zp, out_min, out_max, "add").to(torch.int8)


def mul(a, b, a_zp, b_zp, m, s, lim, out_zp, out_min, out_max):
    """mpy_et_quant::mul: (a-zpa)*(b-zpb), requantized (same shapes)."""
    acc = (a.to(torch.int64) - a_zp) * (b.to(torch.int64) - b_zp)
    return requantize(acc, m, s, lim, out_zp, out_min, out_max, "mul").to(torch.int8)


def clamp(x, lo, hi):
    """mpy_et_quant::clamp: relu/relu6 on int8 (same scale)."""
    return x.clamp(lo, hi)


def max_pool2d(x, kernel_size, stride, padding, dilation):
    """mpy_et_quant::max_pool2d: int8 max over windows (padding never wins)."""
    return torch.nn.functional.max_pool2d(x.to(torch.float64), kernel_size, stride, padding, dilation).to(torch.int8)


def avg_pool2d(x, kernel_size, stride, x_zp, m, s, lim, out_zp):
    """mpy_et_quant::avg_pool2d: sum of (x - zp) over each window (no padding),
    requantized with the window count folded into (m, s)."""
    xs = x.to(torch.float64) - x_zp
    acc = torch.nn.functional.avg_pool2d(xs, kernel_size, stride, divisor_override=1).round().to(torch.int64)
    return requantize(acc, m, s, lim, out_zp, -128, 127, "avg_pool2d").to(torch.int8)


# -- the float boundary: integer-only on the device ---------------------------


def float_keys(x):
    """Monotone unsigned keys of float32 values (order of the reals)."""
    bits = x.to(torch.float32).contiguous().view(torch.int32).to(torch.int64) & 0xFFFFFFFF
    return torch.where(bits >= 2**31, 0xFFFFFFFF - bits, bits | 2**31)


def _floats_of_keys(keys):
    bits = torch.where(keys >= 2**31, keys - 2**31, 0xFFFFFFFF - keys)
    return (bits - ((bits >= 2**31).to(torch.int64) << 32)).to(torch.int32).view(torch.float32)


def quantize_thresholds(scale, zp, qmin=-128, qmax=127):
    """int32 [qmax-qmin, 2]: (key >> 16, key & 0xffff) of the smallest float32
    quantizing to qmin+1, ..., qmax (PyTorch's quantize_per_tensor, exactly)."""
    targets = torch.arange(qmin + 1, qmax + 1, dtype=torch.int64)
    inf = torch.tensor([float("-inf"), float("inf")])
    k_lo, k_hi = (int(k) for k in float_keys(inf))
    lo = torch.full_like(targets, k_lo)  # q(lo) < target
    hi = torch.full_like(targets, k_hi)  # q(hi) >= target
    while bool((hi - lo > 1).any()):
        mid = (lo + hi) // 2
        q = torch.ops.quantized_decomposed.quantize_per_tensor(_floats_of_keys(mid), scale, zp, qmin, qmax, torch.int8).to(torch.int64)
        up = q >= targets
        hi = torch.where(up, mid, hi)
        lo = torch.where(up, lo, mid)
    return torch.stack([hi >> 16, hi & 0xFFFF], 1).to(torch.int32)


def quantize_buckets(thresholds):
    """uint8 [4097]: entry b = how many thresholds have (key >> 16) >> 4 below b,
    so the thresholds of a key whose top 12 bits are b lie in [entry b, entry
    b + 1): what the device searches (read in place from the .pte)."""
    his = thresholds[:, 0].to(torch.int64)
    b = torch.arange(4097, dtype=torch.int64)
    return (his.reshape(1, -1) >> 4 < b.reshape(-1, 1)).sum(1).to(torch.uint8)


def quantize_per_tensor(x, thresholds, buckets, scale, zp, qmin, qmax):
    """mpy_et_quant::quantize_per_tensor: float32 -> int8 by threshold count
    (buckets only narrow the device's search)."""
    t = thresholds.to(torch.int64)
    keys = t[:, 0] * 65536 + t[:, 1]
    k = float_keys(x).reshape(-1)
    q = qmin + torch.searchsorted(keys, k, right=True)
    return q.reshape(x.shape).to(torch.int8)


def dequantize_table(scale, zp):
    """float32 [256]: PyTorch's dequantize_per_tensor of -128..127."""
    q = torch.arange(-128, 128, dtype=torch.int8)
    return torch.ops.quantized_decomposed.dequantize_per_tensor(q, scale, zp, -128, 127, torch.int8).to(torch.float32)


def dequantize_per_tensor(q, table, scale, zp):
    """mpy_et_quant::dequantize_per_tensor: int8 -> float32 by table lookup."""
    return table[q.to(torch.int64) + 128]


# -- softmax: integer-only, a table of exp per input step ---------------------


def softmax_table(x_scale, n):
    """int32 [256]: round(exp(-x_scale * d) * 2**K) for d = 0..255, the
    difference from the row's maximum; K (at most 21) keeps n entries' sum
    within 2**29 and an entry times 256 within 2**29 (small ints on 32-bit
    ports)."""
    k = min(21, int(math.floor(math.log2(2**29 / max(1, n)))))
    if k < 8:
        raise QuantRangeError("softmax over %d elements: the exp table would have %d bits; at most %d elements" % (n, k, 2**21))
    d = torch.arange(256, dtype=torch.float64)
    return torch.round(torch.exp(-x_scale * d) * 2.0**k).to(torch.int32)


def softmax(x, table, dim, levels, out_zp):
    """mpy_et_quant::softmax: out = out_zp + floor((T[m - x] * levels + S // 2) / S)
    along dim, clamped to 127, where m is the row's maximum and S the row's
    sum of T[m - x]: output scale 1 / levels."""
    xs = x.to(torch.int64)
    t = table.to(torch.int64)
    e = t[xs.amax(dim, keepdim=True) - xs]
    s = e.sum(dim, keepdim=True)
    check_range(s, 2**29 + 1, "softmax sum")
    check_range(e * levels + s // 2, SMALL, "softmax numerator")
    q = out_zp + torch.div(e * levels + s // 2, s, rounding_mode="floor")
    return q.clamp(-128, 127).to(torch.int8)


# -- lookup tables: any elementwise function of one int8 input ----------------


def lut_table(fn, x_scale, x_zp, out_scale, out_zp):
    """int8 [256]: PyTorch's quantize(fn(dequantize(v))) for v = -128..127,
    the float32 computation of the PT2E reference graph, value by value."""
    qd = torch.ops.quantized_decomposed
    levels = torch.arange(-128, 128, dtype=torch.int8)
    real = qd.dequantize_per_tensor(levels, x_scale, x_zp, -128, 127, torch.int8)
    return qd.quantize_per_tensor(fn(real).to(torch.float32), out_scale, out_zp, -128, 127, torch.int8)


def lut(x, table):
    """mpy_et_quant::lut: out = table[x + 128]."""
    return table[x.to(torch.int64) + 128]


def upsample_nearest2d(x, scale_factors):
    """mpy_et_quant::upsample_nearest2d: torch's nearest rule on int8 (exact)."""
    return torch.nn.functional.interpolate(x.to(torch.float32), scale_factor=list(scale_factors), mode="nearest").to(torch.int8)

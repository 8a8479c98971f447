"""Geometry of the 2-D upsampling kernels (load time only): output size
from output_size or scale factors, and torch's source-index rules."""

import math

from mpy_et import dtypes
from portable_kernels.util import checks, loops


def check(x, out, output_size, scales, what, floats_only):
    """Check an upsample call; return (planes, h, w, oh, ow, scale_h, scale_w)
    with scale_* None when not given."""
    checks.is_tensor(x, what + " input")
    checks.is_tensor(out, what + " out")
    if floats_only:
        checks.dtype_in(x, dtypes.FLOATING, what + " input")
    checks.same_dtype(x, out)
    if len(x.sizes) != 4:
        checks.fail("%s: input must be 4-D (N, C, H, W), got %s" % (what, checks.shape_str(x)))
    h, w = x.sizes[2], x.sizes[3]
    sh, sw = scales
    for s in scales:
        if s is not None and (not isinstance(s, (int, float)) or s <= 0):
            checks.fail("%s: scale factors must be positive numbers, got %r" % (what, list(scales)))
    if output_size is not None:
        oh, ow = checks.int_list(output_size, 2, what + " output_size", 1)
    elif sh is None or sw is None:
        checks.fail("%s: needs output_size or both scale factors" % what)
    else:
        oh, ow = int(math.floor(h * sh)), int(math.floor(w * sw))
    if h < 1 or w < 1 or oh < 1 or ow < 1:
        checks.fail("%s: input %s and output %s must be non-empty" % (what, checks.shape_str(x), [oh, ow]))
    checks.out_shape(out, (x.sizes[0], x.sizes[1], oh, ow), what)
    return loops.numel(x.sizes[:2]), h, w, oh, ow, sh, sw


def vec_scales(output_size, scale_factors, what):
    """(output_size, (scale_h, scale_w)) of a .vec overload: exactly one is given."""
    if (output_size is None) == (scale_factors is None):
        checks.fail("%s: exactly one of output_size and scale_factors must be given" % what)
    if scale_factors is None:
        return output_size, (None, None)
    if not isinstance(scale_factors, (list, tuple)) or len(scale_factors) != 2:
        checks.fail("%s: scale_factors must have 2 values, got %r" % (what, scale_factors))
    return None, tuple(scale_factors)


def nearest_index(n_in, n_out, scale):
    """Source index of each output index, as torch computes it:
    min(floor(float32(i) * float32(scale)), n_in - 1) with scale = 1 / scale
    factor if one is given, else n_in / n_out. The float32 arithmetic is
    emulated exactly with integers, so ports with other floats (CircuitPython's
    30-bit) pick the same pixels."""
    if n_out == n_in:
        return list(range(n_out))
    if n_out == 2 * n_in:
        return [i >> 1 for i in range(n_out)]
    p, q = (n_in, n_out) if scale is None else _fraction(1.0 / scale)
    m, e = _f32(p, q)
    return [min(_floor_f32_product(i, m, e), n_in - 1) for i in range(n_out)]


def _fraction(x):
    """p / q close to x > 0 (continued fractions; scale factors are simple ratios)."""
    h0, h1, k0, k1 = 0, 1, 1, 0
    y = x
    for _ in range(32):
        a = int(y)
        h0, h1 = h1, a * h1 + h0
        k0, k1 = k1, a * k1 + k0
        frac = y - a
        if abs(h1 / k1 - x) <= 1e-6 * x or frac < 1e-9:
            break
        y = 1.0 / frac
    return h1, k1


def _f32(p, q):
    """(m, e): the float32 nearest p / q (p, q > 0) is m * 2**e, 2**23 <= m < 2**24."""
    e = 0
    while True:
        num, den = (p << -e, q) if e < 0 else (p, q << e)
        m, r = divmod(num, den)
        if m >= 1 << 24:
            e += 1
        elif m < 1 << 23:
            e -= 1
        else:
            break
    if 2 * r > den or (2 * r == den and m & 1):
        m += 1
        if m == 1 << 24:
            m, e = m >> 1, e + 1
    return m, e


def _floor_f32_product(i, m, e):
    """floor(float32(i * m * 2**e)) for an int i >= 0 (round half to even)."""
    v = i * m
    k = 0
    while v >> k >= 1 << 24:
        k += 1
    if k:
        r = v & ((1 << k) - 1)
        v >>= k
        half = 1 << (k - 1)
        if r > half or (r == half and v & 1):
            v += 1
    e += k
    return v << e if e >= 0 else v >> -e


def linear_weights(n_in, n_out, align_corners, scale):
    """(i0, i1, l0, l1) per output index: the two source indices and their weights."""
    if align_corners:
        r = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    else:
        r = 1.0 / scale if scale is not None else n_in / n_out
    i0s, i1s, l0s, l1s = [], [], [], []
    for i in range(n_out):
        src = r * i if align_corners else max(r * (i + 0.5) - 0.5, 0.0)
        i0 = min(int(src), n_in - 1)
        i1 = i0 + 1 if i0 < n_in - 1 else i0
        l1 = src - i0
        i0s.append(i0)
        i1s.append(i1)
        l0s.append(1.0 - l1)
        l1s.append(l1)
    return i0s, i1s, l0s, l1s

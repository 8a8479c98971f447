"""Sliding-window geometry shared by the pooling kernels (load time only)."""

from mpy_et import dtypes
from portable_kernels.util import checks

_FLOATS = (dtypes.FLOAT, dtypes.DOUBLE)


def out_size(n, k, s, p, d, ceil_mode):
    """torch's pooling_output_shape: windows along a dim of n inputs."""
    span = d * (k - 1) + 1
    o = (n + 2 * p - span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (o - 1) * s >= n + p:
        o -= 1  # the last window must start inside the input or the left padding
    return o


def pool2d(x, out, kernel_size, stride, padding, dilation, ceil_mode, what):
    """Check a 2-D pooling call on (N, C, H, W) or (C, H, W) input.

    Returns (planes, h, w, oh, ow, (kh, kw), (sh, sw), (ph, pw), (dh, dw)).
    """
    checks.is_tensor(x, what + " input")
    checks.dtype_in(x, _FLOATS, what + " input")
    checks.is_tensor(out, what + " out")
    checks.same_dtype(x, out)
    if len(x.sizes) not in (3, 4):
        checks.fail("%s: input must be 3-D (C, H, W) or 4-D (N, C, H, W), got %s" % (what, checks.shape_str(x)))
    k = checks.int_list(kernel_size, 2, what + " kernel_size", 1)
    s = checks.int_list(stride, 2, what + " stride", 1) if stride else k
    p = checks.int_list(padding, 2, what + " padding", 0)
    d = checks.int_list(dilation, 2, what + " dilation", 1)
    checks.flag(ceil_mode, what + " ceil_mode")
    for i in range(2):
        if 2 * p[i] > d[i] * (k[i] - 1) + 1:
            checks.fail(
                "%s: padding %s must be at most half of the effective kernel size (kernel %s, dilation %s)"
                % (what, list(p), list(k), list(d))
            )
    h, w = x.sizes[-2], x.sizes[-1]
    oh = out_size(h, k[0], s[0], p[0], d[0], ceil_mode)
    ow = out_size(w, k[1], s[1], p[1], d[1], ceil_mode)
    if oh < 1 or ow < 1:
        checks.fail(
            "%s: input %s is too small for kernel %s (padding %s, dilation %s)" % (what, checks.shape_str(x), list(k), list(p), list(d))
        )
    checks.out_shape(out, tuple(x.sizes[:-2]) + (oh, ow), what)
    planes = 1
    for v in x.sizes[:-2]:
        planes *= v
    return planes, h, w, oh, ow, k, s, p, d


def starts_ends(n_out, n_in, k, s, p, d):
    """Valid input range [start, end) of each window (start on the dilation grid)."""
    starts, ends = [], []
    for o in range(n_out):
        a = o * s - p
        e = min(a + d * (k - 1) + 1, n_in)
        while a < 0:
            a += d
        starts.append(a)
        ends.append(e)
    return starts, ends

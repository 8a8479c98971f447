"""aten::upsample_bilinear2d.out / .vec_out: bilinear interpolation over H
and W, align_corners either way, torch's source-index rule. Float only.

Source rows/columns and their weights are computed at load. The step is
separable: each input row is interpolated across once into a preallocated
list (h x ow), then each output row blends two of those rows. Allocation in
the step: boxed floats only.
"""

from portable_kernels.util import checks, upsample
from portable_kernels.util.float_loops import release


def upsample_bilinear2d_out(x, output_size, align_corners, scales_h, scales_w, out):
    return _bilinear(x, output_size, align_corners, (scales_h, scales_w), out)


def upsample_bilinear2d_vec_out(x, output_size, align_corners, scale_factors, out):
    size, scales = upsample.vec_scales(output_size, scale_factors, "upsample_bilinear2d")
    return _bilinear(x, size, align_corners, scales, out)


def _bilinear(x, output_size, align_corners, scales, out):
    what = "upsample_bilinear2d"
    checks.flag(align_corners, what + " align_corners")
    planes, h, w, oh, ow, sh, sw = upsample.check(x, out, output_size, scales, what, True)
    if planes == 0:
        return None
    h0, h1, lh0, lh1 = upsample.linear_weights(h, oh, align_corners, sh)
    w0, w1, lw0, lw1 = upsample.linear_weights(w, ow, align_corners, sw)
    rows = ([a * ow for a in h0], [(b - a) * ow for a, b in zip(h0, h1)], lh0, lh1)
    return _step, (x.data, out.data, planes, h, w, oh, ow, rows, (w0, w1, lw0, lw1), [0.0] * (h * ow))


def _step(ctx):
    x, o, planes, h, w, oh, ow, rows, cols, t = ctx
    r0s, ds, a0s, a1s = rows
    c0s, c1s, b0s, b1s = cols
    oi = 0
    base = 0
    for _ in range(planes):
        ti = 0
        for _ in range(h):  # across: t[r, j] = b0 * x[r, c0] + b1 * x[r, c1]
            for j in range(ow):
                t[ti] = b0s[j] * x[base + c0s[j]] + b1s[j] * x[base + c1s[j]]
                ti += 1
            base += w
        for i in range(oh):  # down: out[i, j] = a0 * t[r0, j] + a1 * t[r1, j]
            a0 = a0s[i]
            a1 = a1s[i]
            d = ds[i]
            p = r0s[i]
            for q in range(p, p + ow):
                o[oi] = a0 * t[q] + a1 * t[q + d]
                oi += 1
    release(t)

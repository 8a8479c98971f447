"""aten::upsample_bilinear2d.out / .vec_out: bilinear interpolation over H
and W, align_corners either way, torch's source-index rule. Float only.

Source rows/columns and their weights are computed at load; the step does
two multiply-adds per source pixel. Allocation in the step: boxed floats
only.
"""

from portable_kernels import checks, upsample


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
    rows = ([a * w for a in h0], [a * w for a in h1], lh0, lh1)
    return _step, (x.data, out.data, planes, h * w, oh, ow, rows, (w0, w1, lw0, lw1))


def _step(ctx):
    x, o, planes, plane, oh, ow, rows, cols = ctx
    r0s, r1s, a0s, a1s = rows
    c0s, c1s, b0s, b1s = cols
    oi = 0
    base = 0
    for _ in range(planes):
        for i in range(oh):
            r0 = base + r0s[i]
            r1 = base + r1s[i]
            a0 = a0s[i]
            a1 = a1s[i]
            for j in range(ow):
                c0 = c0s[j]
                c1 = c1s[j]
                b0 = b0s[j]
                b1 = b1s[j]
                o[oi] = a0 * (b0 * x[r0 + c0] + b1 * x[r0 + c1]) + a1 * (b0 * x[r1 + c0] + b1 * x[r1 + c1])
                oi += 1
        base += plane

"""Float 2-D convolution and max pooling over tensors in any dim order
(channels-last [0, 2, 3, 1] and others ExecuTorch emits): each element is
found through the strides its tensor's dim order gives. The reference
arithmetic of op_convolution.py (terms summed in double where the port has
doubles, channel, then kernel row, then column) without its fast paths,
which read the contiguous order. Allocation in the steps: boxed floats only.
"""

from portable_kernels.util import dim_order


def strides(t):
    """Element stride of each logical dim of t, from its dim order."""
    return dim_order.strides(t.sizes, t.dim_order)


def conv2d(x, weight, bias, out, stride, padding, dilation, groups):
    """(step, ctx) of a 2-D convolution, N C H W logical dims."""
    n, c, h, w = x.sizes
    oc, cg, kh, kw = weight.sizes
    geom = (n, oc // groups, groups, cg, h, w, kh, kw, out.sizes[2], out.sizes[3])
    geom += tuple(stride) + tuple(padding) + tuple(dilation)
    st = (strides(x), strides(weight), strides(out))
    return _conv, (x.data, weight.data, None if bias is None else bias.data, out.data, geom, st)


def _conv(ctx):
    xd, wd, bd, od, geom, st = ctx
    n, ocg, groups, cg, h, w, kh, kw, oh, ow, sh, sw, ph, pw, dh, dw = geom
    (xn, xc, xh, xw), (wo, wc, wh, ww), (on, oc_, oh_, ow_) = st
    for b in range(n):
        for g in range(groups):
            for o in range(g * ocg, (g + 1) * ocg):
                for oy in range(oh):
                    for ox in range(ow):
                        acc = 0.0
                        for ci in range(cg):
                            xb = b * xn + (g * cg + ci) * xc
                            wb = o * wo + ci * wc
                            for ky in range(kh):
                                iy = oy * sh - ph + ky * dh
                                if 0 <= iy < h:
                                    for kx in range(kw):
                                        ix = ox * sw - pw + kx * dw
                                        if 0 <= ix < w:
                                            acc += xd[xb + iy * xh + ix * xw] * wd[wb + ky * wh + kx * ww]
                        if bd is not None:
                            acc += bd[o]
                        od[b * on + o * oc_ + oy * oh_ + ox * ow_] = acc


def max_pool2d(x, out, indices, k, s, p, d, oh, ow):
    """(step, ctx) of max_pool2d_with_indices: indices are h * W + w within
    the plane, as torch's, whatever the order."""
    xs, os_, is_ = strides(x), strides(out), strides(indices)
    lead = len(x.sizes) - 2
    geom = (x.sizes[0] if lead == 2 else 1, x.sizes[lead - 1], x.sizes[-2], x.sizes[-1], oh, ow) + tuple(k) + tuple(s) + tuple(p) + tuple(d)
    pad = [0] * (2 - lead)
    st = tuple(pad + xs) + tuple(pad + os_) + tuple(pad + is_)
    return _max_pool, (x.data, out.data, indices.data, geom, st)


def _max_pool(ctx):
    xd, od, ix, geom, st = ctx
    n, c, h, w, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw = geom
    xn, xc, xh, xw, on, oc, ohs, ows, jn, jc, jh, jw = st
    for b in range(n):
        for ch in range(c):
            xb = b * xn + ch * xc
            for oy in range(oh):
                for ox in range(ow):
                    m = None
                    mi = 0
                    for ky in range(kh):
                        iy = oy * sh - ph + ky * dh
                        if 0 <= iy < h:
                            for kx in range(kw):
                                jx = ox * sw - pw + kx * dw
                                if 0 <= jx < w:
                                    v = xd[xb + iy * xh + jx * xw]
                                    if m is None or v > m or v != v:  # NaN wins, as in torch
                                        m = v
                                        mi = iy * w + jx
                    od[b * on + ch * oc + oy * ohs + ox * ows] = m
                    ix[b * jn + ch * jc + oy * jh + ox * jw] = mi

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
    """(step, ctx) of a 2-D convolution, N C H W logical dims. The kernel rows
    and columns inside the input are found per output row and column at load
    (the step tests no bounds)."""
    n, c, h, w = x.sizes
    oc, cg, kh, kw = weight.sizes
    oh, ow = out.sizes[2], out.sizes[3]
    rows = _taps(oh, h, kh, stride[0], padding[0], dilation[0])
    cols = _taps(ow, w, kw, stride[1], padding[1], dilation[1])
    geom = (n, oc, oc // groups, cg, oh, ow, dilation[0], dilation[1], rows, cols)
    st = (strides(x), strides(weight), strides(out))
    return _conv, (x.data, weight.data, None if bias is None else bias.data, out.data, geom, st)


def _taps(o, size, k, s, p, d):
    """Per output position: (first input index, first tap, taps inside the input)."""
    taps = []
    for i in range(o):
        start = i * s - p
        first = 0
        while first < k and start + first * d < 0:
            first += 1
        last = k
        while last > first and start + (last - 1) * d >= size:
            last -= 1
        taps.append((start + first * d, first, last - first))
    return taps


def _conv(ctx):
    xd, wd, bd, od, geom, st = ctx
    n, oc, ocg, cg, oh, ow, dh, dw, rows, cols = geom
    (xn, xc, xh, xw), (wo, wc, wh, ww), (on, oc_, oh_, ow_) = st
    ryh, cxw = dh * xh, dw * xw  # input steps between kernel taps
    for b in range(n):
        for oy in range(oh):
            iy, ky, nky = rows[oy]
            for ox in range(ow):
                ix, kx, nkx = cols[ox]
                xp = b * xn + iy * xh + ix * xw
                op = b * on + oy * oh_ + ox * ow_
                for o in range(oc):
                    acc = 0.0 if bd is None else bd[o]
                    xr = xp + (o // ocg) * cg * xc
                    wr = o * wo + ky * wh + kx * ww
                    for _ in range(nky):
                        xq = xr
                        wq = wr
                        for _ in range(nkx):
                            xi = xq
                            wi = wq
                            for _ in range(cg):
                                acc += xd[xi] * wd[wi]
                                xi += xc
                                wi += wc
                            xq += cxw
                            wq += ww
                        xr += ryh
                        wr += wh
                    od[op + o * oc_] = acc


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

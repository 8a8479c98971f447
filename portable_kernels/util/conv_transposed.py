"""Transposed convolution (aten::convolution.out with transposed=True),
2-D (NCHW) and 1-D (NCL): stride, padding, dilation, output_padding and
groups. Weight is (in_channels, out_channels / groups, kh, kw).

The step scatters: for each output channel, every input plane of its group
is added into an accumulator plane covering the uncropped output
((H - 1) * stride + dilation * (k - 1) + 1 + output_padding rows), one
pass over the input plane per kernel tap with the weight hoisted; the
padding is then cropped away while writing out. Accumulators and the input
plane being read are preallocated lists of Python floats (the plane is
read once per tap: copying it boxes each float once). Allocation in the step: boxed floats only.
"""

from portable_kernels.util import checks
from portable_kernels.util.float_loops import release


def prepare(x, weight, bias, geometry, output_padding, groups, out, what):
    """(step, ctx) for a transposed convolution; geometry = (n, c, h, w,
    (sh, sw), (ph, pw), (dh, dw)) from convolution_out's checks."""
    n, c, h, w, (sh, sw), (ph, pw), (dh, dw) = geometry
    one_d = len(x.sizes) == 3
    opad = checks.int_list(output_padding, 1 if one_d else 2, what + " output_padding", 0)
    oph, opw = (0, opad[0]) if one_d else opad
    if oph >= max(sh, dh) or opw >= max(sw, dw):
        checks.fail("%s: output_padding %s must be smaller than stride or dilation" % (what, list(opad)))
    if c % groups:
        checks.fail("%s: input channels (%d) must be divisible by groups (%d)" % (what, c, groups))
    if weight.sizes[0] != c:
        checks.fail(
            "%s: transposed weight %s must have %d input channels first (input %s)"
            % (what, checks.shape_str(weight), c, checks.shape_str(x))
        )
    opg = weight.sizes[1]
    kh, kw = (1, weight.sizes[2]) if one_d else (weight.sizes[2], weight.sizes[3])
    oc = opg * groups
    if bias is not None:
        checks.is_tensor(bias, what + " bias")
        checks.same_dtype(x, bias)
        if tuple(bias.sizes) != (oc,):
            checks.fail("%s: bias must be [%d], got %s" % (what, oc, checks.shape_str(bias)))
    fh = (h - 1) * sh + dh * (kh - 1) + 1 + oph  # uncropped output plane
    fw = (w - 1) * sw + dw * (kw - 1) + 1 + opw
    oh, ow = fh - 2 * ph, fw - 2 * pw
    if oh < 1 or ow < 1 or kh < 1 or kw < 1:
        checks.fail(
            "%s: padding %s leaves no output for input %s and weight %s" % (what, [ph, pw], checks.shape_str(x), checks.shape_str(weight))
        )
    checks.out_shape(out, (n, oc, ow) if one_d else (n, oc, oh, ow), what)
    if out.numel == 0:
        return None
    taps = tuple(i * dh * fw + j * dw for i in range(kh) for j in range(kw))
    bdata = bias.data if bias is not None else None
    geom = (n, groups, opg, c // groups, h, w, fw, sh * fw, sw, oh, ow, ph * fw + pw)
    return _conv_transposed, (x.data, weight.data, bdata, out.data, [0.0] * (fh * fw), [0.0] * (h * w), taps) + geom


def _conv_transposed(ctx):
    x, wt, bias, o, acc, xp, taps, n, groups, opg, cpg, h, w, fw, rstep, sw, oh, ow, crop = ctx
    hw = h * w
    filled = -1  # input offset of the plane held in xp
    ntaps = len(taps)
    nacc = len(acc)
    oi = 0
    for b in range(n):
        for g in range(groups):
            for ocg in range(opg):
                bv = bias[g * opg + ocg] if bias is not None else 0.0
                for j in range(nacc):
                    acc[j] = bv
                for icg in range(cpg):
                    ic = g * cpg + icg
                    xb = (b * groups * cpg + ic) * hw
                    if xb != filled:  # the plane as Python floats: read taps times, boxed once
                        for j in range(hw):
                            xp[j] = x[xb + j]
                        filled = xb
                    wi = (ic * opg + ocg) * ntaps
                    for t in range(ntaps):
                        wv = wt[wi + t]
                        r = taps[t]
                        xi = 0
                        for _ in range(h):
                            q = r
                            for xj in range(xi, xi + w):
                                acc[q] += wv * xp[xj]
                                q += sw
                            xi += w
                            r += rstep
                r = crop
                for _ in range(oh):
                    for q in range(r, r + ow):
                        o[oi] = acc[q]
                        oi += 1
                    r += fw
    release(acc)
    release(xp)

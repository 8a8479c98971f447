"""Convolution step for kernels 2 to 5 taps wide (aten::convolution.out):
5x5, 10x4, 1-D kernels of 2 to 5 and the like. Each kernel row's taps are
summed in one expression per output pixel, with the row's weights
hoisted, so the accumulator list is read and written once per kernel row
rather than once per tap; with stride and dilation 1 along the row, 3- and
5-tap rows slide their window (the taps live in locals, one list read per
output). Same plane geometry, padding copy and passes of output channels
as op_convolution's 3x3 step. Allocation in the step: boxed floats only.
"""

from portable_kernels.util.float_loops import release


def fill_plane(x, xi, plane, p, h, w, wp):
    """Copy one h x w input plane into the padded plane list at p (not a step)."""
    for _ in range(h):
        for q in range(p, p + w):
            plane[q] = x[xi]
            xi += 1
        p += wp


def conv_rows(ctx):
    x, wt, bias, o, acc, pl, oc_n, n, groups, opg, cpg, h, w, wp, p0, oh, ow, rstep, sw, kh, kw, kstep, d1, og = ctx
    slide = sw == 1 and d1 == 1
    hw = h * w
    gstride = cpg * hw
    ohw = oh * ow
    d2 = 2 * d1
    d3 = 3 * d1
    d4 = 4 * d1
    filled = -1  # input offset of the plane in pl
    oi = 0
    for b in range(n):
        for g in range(groups):
            oc = g * opg
            oc_end = oc + opg
            while oc < oc_end:  # a pass: up to og output channels share each plane copy
                cnt = oc_end - oc if oc_end - oc < og else og
                j = 0
                for c in range(oc, oc + cnt):
                    bv = bias[c] if bias is not None else 0.0
                    for _ in range(ohw):
                        acc[j] = bv
                        j += 1
                xi = (b * groups + g) * gstride
                for ic in range(cpg):
                    if xi != filled:  # one input channel per group: reuse the plane
                        fill_plane(x, xi, pl, p0, h, w, wp)
                        filled = xi
                    xi += hw
                    j0 = 0
                    for c in range(oc, oc + cnt):
                        wi = (c * cpg + ic) * kh * kw
                        r0 = 0
                        for _ in range(kh):
                            w0 = wt[wi]
                            w1 = wt[wi + 1]
                            j = j0
                            r = r0
                            if kw == 2:
                                for _ in range(oh):
                                    a = r
                                    for _ in range(ow):  # counted: range() with a variable step would allocate
                                        acc[j] += w0 * pl[a] + w1 * pl[a + d1]
                                        j += 1
                                        a += sw
                                    r += rstep
                            elif kw == 3:
                                w2 = wt[wi + 2]
                                if slide:  # stride and dilation 1: the window slides, one read per output
                                    for _ in range(oh):
                                        u0 = pl[r]
                                        u1 = pl[r + 1]
                                        a = r + 2
                                        for _ in range(ow):
                                            u2 = pl[a]
                                            acc[j] += w0 * u0 + w1 * u1 + w2 * u2
                                            u0 = u1
                                            u1 = u2
                                            j += 1
                                            a += 1
                                        r += rstep
                                    wi += 3
                                    r0 += kstep
                                    continue
                                for _ in range(oh):
                                    a = r
                                    for _ in range(ow):  # counted: range() with a variable step would allocate
                                        acc[j] += w0 * pl[a] + w1 * pl[a + d1] + w2 * pl[a + d2]
                                        j += 1
                                        a += sw
                                    r += rstep
                            elif kw == 4:
                                w2 = wt[wi + 2]
                                w3 = wt[wi + 3]
                                for _ in range(oh):
                                    a = r
                                    for _ in range(ow):  # counted: range() with a variable step would allocate
                                        acc[j] += w0 * pl[a] + w1 * pl[a + d1] + w2 * pl[a + d2] + w3 * pl[a + d3]
                                        j += 1
                                        a += sw
                                    r += rstep
                            else:
                                w2 = wt[wi + 2]
                                w3 = wt[wi + 3]
                                w4 = wt[wi + 4]
                                if slide:  # stride and dilation 1: the window slides, one read per output
                                    for _ in range(oh):
                                        u0 = pl[r]
                                        u1 = pl[r + 1]
                                        u2 = pl[r + 2]
                                        u3 = pl[r + 3]
                                        a = r + 4
                                        for _ in range(ow):
                                            u4 = pl[a]
                                            acc[j] += w0 * u0 + w1 * u1 + w2 * u2 + w3 * u3 + w4 * u4
                                            u0 = u1
                                            u1 = u2
                                            u2 = u3
                                            u3 = u4
                                            j += 1
                                            a += 1
                                        r += rstep
                                    wi += 5
                                    r0 += kstep
                                    continue
                                for _ in range(oh):
                                    a = r
                                    for _ in range(ow):  # counted: range() with a variable step would allocate
                                        acc[j] += w0 * pl[a] + w1 * pl[a + d1] + w2 * pl[a + d2] + w3 * pl[a + d3] + w4 * pl[a + d4]
                                        j += 1
                                        a += sw
                                    r += rstep
                            wi += kw
                            r0 += kstep
                        j0 += ohw
                for j in range(cnt * ohw):
                    o[oi] = acc[j]
                    oi += 1
                oc += cnt
    release(acc)
    release(pl)

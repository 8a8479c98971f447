"""aten::avg_pool2d.out: mean over windows, with torch's divisor rules
(count_include_pad, divisor_override, ceil_mode). Float only. Allocation in
the step: boxed floats only. A float32 window over the whole plane runs as a
soft-float matrix product where the port has native code (_global)."""

from mpy_et import dtypes
from portable_kernels.util import checks, window
from portable_kernels.util.emitters import HAS_NATIVE


def avg_pool2d_out(x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, out):
    what = "avg_pool2d"
    planes, h, w, oh, ow, k, s, p, _ = window.pool2d(x, out, kernel_size, stride, padding, 1, ceil_mode, what)
    checks.flag(count_include_pad, what + " count_include_pad")
    if divisor_override is not None and (not isinstance(divisor_override, int) or divisor_override == 0):
        checks.fail("%s: divisor_override must be a nonzero int or None, got %r" % (what, divisor_override))
    rows = _ranges(oh, h, k[0], s[0], p[0], count_include_pad)
    cols = _ranges(ow, w, k[1], s[1], p[1], count_include_pad)
    if divisor_override is not None:
        rows = rows[:2] + ([divisor_override] * oh,)
        cols = cols[:2] + ([1] * ow,)
    hs = [a * w for a in rows[0]]
    hn = [e - a for a, e in zip(rows[0], rows[1])]
    step, ctx = _avg_pool, (x.data, out.data, planes, h * w, oh, ow, hs, hn, rows[2], cols[0], cols[1], cols[2], w)
    if HAS_NATIVE and oh == ow == 1 and x.dtype == dtypes.FLOAT and rows[:2] == ([0], [h]) and cols[:2] == ([0], [w]):
        return _global(x, out, planes, h * w, rows[2][0] * cols[2][0], step, ctx)
    return step, ctx


def _global(x, out, planes, hw, divisor, step, ctx):
    """A window over the whole plane (a global average pool) where the port
    has native code: op_mm.row_means (no float objects: the bytecode step
    boxes every element), with (step, ctx) as its fallback."""
    from portable_kernels import op_mm

    return op_mm.row_means(x, out, planes, hw, divisor, step, ctx)


def _ranges(n_out, n_in, k, s, p, include_pad):
    """Per output index: valid [start, end) and the divisor factor (torch's rules)."""
    starts, ends, sizes = [], [], []
    for o in range(n_out):
        a = o * s - p
        e = min(a + k, n_in + p)
        size = e - a
        a = max(a, 0)
        e = min(e, n_in)
        starts.append(a)
        ends.append(e)
        sizes.append(size if include_pad else e - a)
    return starts, ends, sizes


def _avg_pool(ctx):
    """Also _adaptive_avg_pool2d's step: window rows hs[i] (flat) for hn[i]
    rows, columns [ws[j], we[j]), divisor fh[i] * fw[j]."""
    x, o, planes, hw, oh, ow, hs, hn, fh, ws, we, fw, w = ctx
    oi = 0
    xb = 0
    for _ in range(planes):
        for i in range(oh):
            r0 = xb + hs[i]
            nr = hn[i]
            f = fh[i]
            for j in range(ow):
                c0 = ws[j]
                c1 = we[j]
                acc = 0.0
                r = r0
                for _ in range(nr):  # counted: range() with step w would allocate
                    for q in range(r + c0, r + c1):
                        acc += x[q]
                    r += w
                o[oi] = acc / (f * fw[j])
                oi += 1
        xb += hw

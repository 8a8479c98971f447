"""aten::clamp.out: min(max(x, min), max); either bound may be None.

As torch: NaN passes through, and min > max gives max everywhere. The
integer steps allocate nothing.
"""

from portable_kernels import checks


def clamp_out(x, lo, hi, out):
    if lo is None and hi is None:
        checks.fail("clamp: at least one of min and max must be given")
    bounds = tuple(v for v in (lo, hi) if v is not None)
    checks.arith_dtype((x,), bounds, out, "clamp")
    checks.out_shape(out, x.sizes, "clamp")
    return clamp_steps(x, out, lo, hi)


def clamp_steps(x, out, lo, hi):
    if hi is None:
        return _clamp_min, (x.data, out.data, x.numel, lo)
    if lo is None:
        return _clamp_max, (x.data, out.data, x.numel, hi)
    return _clamp, (x.data, out.data, x.numel, lo, hi)


def _clamp(ctx):
    src, dst, n, lo, hi = ctx
    for i in range(n):
        v = src[i]
        if v < lo:
            v = lo
        if v > hi:
            v = hi
        dst[i] = v


def _clamp_min(ctx):
    src, dst, n, lo = ctx
    for i in range(n):
        v = src[i]
        dst[i] = lo if v < lo else v


def _clamp_max(ctx):
    src, dst, n, hi = ctx
    for i in range(n):
        v = src[i]
        dst[i] = hi if v > hi else v

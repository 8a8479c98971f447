"""Float32 convolution on Thumb-2 boards (Cortex-M3/M4/M7) as matrix
products in f32_mm_thumb's integer soft-float (no float object; the sums of
f32_mm_thumb, rounded once to float32), or f32_mm_fpu's FPU instructions
where there is a double-precision FPU (emitters.FPU_DP: Cortex-M7): imported
by op_convolution only where the port has Thumb-2 inline assembler
(emitters.THUMB2) and 32-bit words.

A 1x1 kernel with stride 1 and no padding is one product per image: the
group's weights [opg, cpg] times its input planes [cpg, h * w], the groups
as the product's batches, read where they lie. Any other kernel goes by
tiles of output rows (or of part of one row, where a row's block is larger):
gather (viper) writes the tile's im2col block, [cpg * kh * kw, rows * ow]
(padding as 0.0), into shared scratch of at most _COL_BYTES, and f32_mm_thumb multiplies the group's weights by it, writing
each output channel's rows in place (f32_mm_thumb's strided form: offsets,
a row skip in the output, a bias advance per batch).

An operand holding inf or NaN makes f32_mm_thumb stop; the step then runs
op_convolution's bytecode step, built on first use (so a board imports
the bytecode convolution and its scratch only if that ever happens).
"""

from array import array

import micropython

from mpy_et.port import const
from portable_kernels.util import scratch
from portable_kernels.util.emitters import FPU_DP

if FPU_DP:  # the products with FPU instructions (Cortex-M7): the same arguments and cx words
    from portable_kernels.native import f32_mm_fpu as f32_mm_thumb
else:
    from portable_kernels.native import f32_mm_thumb

# only Thumb-2 dists carry it (host_tools/deploy/build_targets.march_list)
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")

# the im2col block of a tile of output rows (one row at least)
_COL_BYTES = const(4096)


def prepare(x, weight, bias, out, ctl, fallback):
    """(step, ctx) of a float32 convolution (ctl: op_convolution's 17 geometry
    words); fallback() builds the bytecode (step, ctx) when first needed."""
    n, groups, opg, cpg, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, hasb = ctl
    k = cpg * kh * kw
    plane = oh * ow
    cx = array("i", bytes(f32_mm_thumb.CX_BYTES))
    head = (cx, scratch.words(k, "mm mantissas"), scratch.words(k, "mm exponents"), x.data, weight.data, out.data)
    bobj = bias.data if bias is not None else cx
    lazy = [fallback, None]
    if kh == 1 and kw == 1 and sh == 1 and sw == 1 and ph == 0 and pw == 0:
        hw = h * w
        _words(cx, (groups, opg, cpg, hw, cpg * hw, hasb, 1, 0))
        cx[27] = 4 * opg  # the next group's bias
        return _pointwise, head + (bobj, lazy, n, 4 * groups * cpg * hw, 4 * groups * opg * hw)
    rows = min(oh, _COL_BYTES // (4 * k * ow))
    cw = ow  # columns per tile: a whole row, or part of one (rows = 1) when a row's block is too large
    if rows < 1:
        rows, cw = 1, max(1, _COL_BYTES // (4 * k))
    tab = []
    for kx in range(kw):  # the output columns whose input column is inside: ix = ox * sw - t
        t = pw - kx * dw
        lo = max(0, (t + sw - 1) // sw)
        hi = min(ow, (w - 1 + t) // sw + 1) if w - 1 + t >= 0 else 0
        tab += [lo, max(lo, hi), t]
    g = array("i", [cpg, h, w, kh, kw, sh, sw, ph, pw, dh, dw, ow] + tab)
    _words(cx, (1, opg, k, rows * cw, 0, hasb, 1, 0))
    col = scratch.words(k * rows * cw, "conv col")
    return _tiles, head + (bobj, lazy, col, g, n * groups, groups, opg, oh, ow, rows, cw, plane)


def _words(cx, ctl):
    """f32_mm_thumb's ctl words: batches, m, k, n, b batch stride, bias flag,
    bias row and column strides (elements)."""
    for i in range(8):
        cx[i] = ctl[i]


def _fallback(lazy):
    if lazy[1] is None:
        lazy[1] = lazy[0]()
    step, ctx = lazy[1]
    step(ctx)


def _pointwise(ctx):
    cx, xm, xe, x, wt, o, bias, lazy, n, xstep, ostep = ctx
    f32_mm_thumb._setup(cx, cx, bias)
    f32_mm_thumb._scratch(cx, xm, xe)
    for b in range(n):
        cx[22] = b * xstep
        cx[23] = b * ostep
        if f32_mm_thumb._mm(cx, wt, x, o):
            _fallback(lazy)
            return


def _tiles(ctx):
    cx, xm, xe, x, wt, o, bias, lazy, col, g, planes, groups, opg, oh, ow, rows, cw, plane = ctx
    f32_mm_thumb._setup(cx, cx, bias)
    f32_mm_thumb._scratch(cx, xm, xe)
    k = cx[2]
    for p in range(planes):  # (image, group)
        cx[21] = 4 * (p % groups) * opg * k  # the group's weights
        cx[24] = 4 * (p % groups) * opg  # its bias
        oy = 0
        ox = 0
        while oy < oh:
            r = oh - oy if oh - oy < rows else rows
            c = ow - ox if ow - ox < cw else cw
            _gather(x, col, g, p, oy, r, ox, c)
            cx[3] = r * c
            cx[23] = 4 * (p * opg * plane + oy * ow + ox)
            cx[26] = 4 * (plane - r * c)
            if f32_mm_thumb._mm(cx, wt, col, o):
                _fallback(lazy)
                return
            ox += c
            if ox == ow:
                ox = 0
                oy += r


@micropython.viper
def _gather(xobj, colobj, gobj, p: int, oy0: int, r: int, ox0: int, cw: int):
    # col[k][rr * cw + ox - ox0] = x[p's channel c][iy][ix] for k = (c, ky, kx), 0 outside,
    # for output rows oy0 .. oy0 + r - 1, columns ox0 .. ox0 + cw - 1
    x = ptr32(xobj)  # noqa: F821
    col = ptr32(colobj)  # noqa: F821
    g = ptr32(gobj)  # noqa: F821
    cpg = g[0]
    h = g[1]
    w = g[2]
    kh = g[3]
    kw = g[4]
    sh = g[5]
    sw = g[6]
    ph = g[7]
    dh = g[9]
    d = 0
    xc = p * cpg * h * w
    for _c in range(cpg):
        for ky in range(kh):
            for kx in range(kw):
                lo = g[12 + 3 * kx]  # the columns inside, clipped to the tile
                hi = g[13 + 3 * kx]
                t = g[14 + 3 * kx]
                if lo < ox0:
                    lo = ox0
                if hi > ox0 + cw:
                    hi = ox0 + cw
                if hi < lo:
                    hi = lo
                iy = oy0 * sh - ph + ky * dh
                for _rr in range(r):
                    e = d + cw
                    if iy < 0 or iy >= h:
                        while d < e:
                            col[d] = 0
                            d += 1
                    else:
                        m = d + lo - ox0
                        while d < m:
                            col[d] = 0
                            d += 1
                        s = xc + iy * w + lo * sw - t
                        m = e - cw + hi - ox0
                        while d < m:
                            col[d] = x[s]
                            d += 1
                            s += sw
                        while d < e:
                            col[d] = 0
                            d += 1
                    iy += sh
        xc += h * w

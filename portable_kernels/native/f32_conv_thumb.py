"""Float32 convolution on Thumb-2 boards (Cortex-M3/M4/M7) as matrix
products in f32_mm_thumb's integer soft-float (no float object; the sums of
f32_mm_thumb, rounded once to float32), or f32_mm_fpu's FPU instructions
where there is a double-precision FPU (emitters.FPU_DP: Cortex-M7): imported
by op_convolution only where the port has Thumb-2 inline assembler
(emitters.THUMB2) and 32-bit words.

A 1x1 kernel with stride 1 and no padding is one product per image: the
group's weights [opg, cpg] times its input planes [cpg, h * w], the groups
as the product's batches, read where they lie. Any other kernel goes by
tiles of output rows (or of part of one row, where a row's block is
larger): _gather (Thumb assembler) writes the tile's im2col block,
[cpg * kh * kw, rows * ow] (padding as 0.0), into shared scratch of at most
_COL_BYTES, and f32_mm_thumb multiplies the group's weights by it, writing
each output channel's rows in place (f32_mm_thumb's strided form: offsets,
a row skip in the output, a bias advance per batch).

An operand holding inf or NaN makes the soft-float product stop (the FPU's
gives IEEE results and never does); the step then runs op_convolution's
bytecode step, built on first use (so a board imports the bytecode
convolution and its scratch only if that ever happens).
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from portable_kernels.util import scratch
from portable_kernels.util.emitters import FPU_DP

if FPU_DP:  # the products with FPU instructions (Cortex-M7): the same arguments and cx words
    from portable_kernels.native import f32_mm_fpu as f32_mm_thumb
else:
    from portable_kernels.native import f32_mm_thumb

# only Thumb-2 dists carry it (host_tools/deploy/build_targets.march_list)
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")

# the im2col block of a tile of output rows (one row at least); larger on a Cortex-M7
# (448 KB heap), where the per-row overheads of the gather and the product otherwise
# dominate a layer with few output channels
_COL_BYTES = 16384 if FPU_DP else 4096


def prepare(x, weight, bias, out, ctl, fallback):
    """(step, ctx) of a float32 convolution (ctl: op_convolution's 17 geometry
    words); fallback(x, weight, bias, out, ctl), on the data views, builds the
    bytecode (step, ctx) when first needed. The step keeps [fallback, ctl]
    for it, not a closure: a closure would keep the four Tensor objects
    (about 640 bytes per convolution on a 32-bit board)."""
    n, groups, opg, cpg, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, hasb = ctl
    k = cpg * kh * kw
    plane = oh * ow
    cx = array("i", bytes(f32_mm_thumb.CX_BYTES))
    head = (cx, scratch.words(k, "mm mantissas"), scratch.words(k, "mm exponents"), x.data, weight.data, out.data)
    bobj = bias.data if bias is not None else cx
    lazy = [fallback, ctl]  # becomes [None, (step, ctx)] once built
    if kh == 1 and kw == 1 and sh == 1 and sw == 1 and ph == 0 and pw == 0:
        hw = h * w
        _words(cx, (groups, opg, cpg, hw, cpg * hw, hasb, 1, 0))
        cx[27] = 4 * opg  # the next group's bias
        return _pointwise, head + (bobj, lazy, n, 4 * groups * cpg * hw, 4 * groups * opg * hw)
    rows = min(oh, _COL_BYTES // (4 * k * ow))
    cw = ow  # columns per tile: a whole row, or part of one (rows = 1) when a row's block is too large
    if rows < 1:  # part of a row: with the FPU, columns in fours (f32_mm_fpu's passes), at least four
        q = 4 if FPU_DP else 1
        rows, cw = 1, min(ow, max(q, _COL_BYTES // (4 * k) // q * q))
    tab = []
    for kx in range(kw):  # the output columns whose input column is inside: ix = ox * sw - t
        t = pw - kx * dw
        lo = max(0, (t + sw - 1) // sw)
        hi = min(ow, (w - 1 + t) // sw + 1) if w - 1 + t >= 0 else 0
        tab += [lo, max(lo, hi), t]
    g = array("i", [cpg, kh, kw, h, 4 * w, 4 * sw, sh, dh, 4 * h * w, 0, 0, 0, 0] + [0] * 11 + tab)
    _words(cx, (1, opg, k, rows * cw, 0, hasb, 1, 0))
    col = scratch.words(k * rows * cw, "conv col")
    return _tiles, head + (bobj, lazy, col, g, n * groups, groups, opg, oh, ow, rows, cw, plane, sh, ph, 4 * cpg * h * w)


def _words(cx, ctl):
    """f32_mm_thumb's ctl words: batches, m, k, n, b batch stride, bias flag,
    bias row and column strides (elements)."""
    for i in range(8):
        cx[i] = ctl[i]


def _fallback(lazy, x, wt, bias, o):
    if lazy[0] is not None:
        ctl = lazy[1]
        lazy[1] = lazy[0](x, wt, bias if ctl[16] else None, o, ctl)
        lazy[0] = None
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
            _fallback(lazy, x, wt, bias, o)
            return


def _tiles(ctx):
    cx, xm, xe, x, wt, o, bias, lazy, col, g, planes, groups, opg, oh, ow, rows, cw, plane, sh, ph, xstep = ctx
    f32_mm_thumb._setup(cx, cx, bias)
    f32_mm_thumb._scratch(cx, xm, xe)
    k = cx[2]
    for p in range(planes):  # (image, group)
        cx[21] = 4 * (p % groups) * opg * k  # the group's weights
        cx[24] = 4 * (p % groups) * opg  # its bias
        g[22] = p * xstep  # the plane's first input channel
        oy = 0
        ox = 0
        while oy < oh:
            r = oh - oy if oh - oy < rows else rows
            c = ow - ox if ow - ox < cw else cw
            g[9] = oy * sh - ph
            g[10] = ox
            g[11] = c
            g[12] = r
            _gather(x, col, g)
            cx[3] = r * c
            cx[23] = 4 * (p * opg * plane + oy * ow + ox)
            cx[26] = 4 * (plane - r * c)
            if f32_mm_thumb._mm(cx, wt, col, o):
                _fallback(lazy, x, wt, bias, o)
                return
            ox += c
            if ox == ow:
                ox = 0
                oy += r


@micropython.asm_thumb
def _gather(r0, r1, r2):
    # r0 x, r1 col (cursor), r2 g (int32): [0] cpg [4] kh [8] kw [12] h [16] w * 4 [20] sw * 4
    # [24] sh [28] dh [32] h * w * 4 [36] iy of the tile's first row and ky 0 [40] ox0 [44] cw
    # [48] rows [52..84] scratch: channels left, ky, kx, rows left, iy, channel address,
    # lo, hi, t [88] byte offset of the plane's first channel in x [96] (lo, hi, t) per kx.
    # col[k][rr * cw + ox - ox0] = x[c][iy][ix] for k = (c, ky, kx), 0.0 outside
    ldr(r3, [r2, 88])
    add(r0, r0, r3)
    str(r0, [r2, 72])
    ldr(r3, [r2, 0])
    str(r3, [r2, 52])
    label(CH)
    mov(r3, 0)
    str(r3, [r2, 56])
    label(KY)
    mov(r3, 0)
    str(r3, [r2, 60])
    label(KX)
    ldr(r3, [r2, 60])
    mov(r4, 12)
    mul(r3, r4)
    add(r3, r3, r2)
    ldr(r4, [r3, 96])  # the columns inside, clipped to the tile: lo .. hi
    ldr(r5, [r3, 100])
    ldr(r6, [r3, 104])
    str(r6, [r2, 84])
    ldr(r7, [r2, 40])
    cmp(r4, r7)
    bge(L1)
    mov(r4, r7)
    label(L1)
    ldr(r3, [r2, 44])
    add(r7, r7, r3)
    cmp(r5, r7)
    ble(L2)
    mov(r5, r7)
    label(L2)
    cmp(r5, r4)
    bge(L3)
    mov(r5, r4)
    label(L3)
    str(r4, [r2, 76])
    str(r5, [r2, 80])
    ldr(r3, [r2, 56])
    ldr(r4, [r2, 28])
    mul(r3, r4)
    ldr(r4, [r2, 36])
    add(r3, r3, r4)
    str(r3, [r2, 68])  # iy
    ldr(r3, [r2, 48])
    str(r3, [r2, 64])
    label(RR)
    ldr(r3, [r2, 44])
    lsl(r3, r3, 2)
    add(r3, r1, r3)  # the end of this row of col
    mov(r7, 0)
    ldr(r4, [r2, 68])
    cmp(r4, 0)
    blt(ZROW)
    ldr(r5, [r2, 12])
    cmp(r4, r5)
    bge(ZROW)
    ldr(r5, [r2, 76])
    ldr(r6, [r2, 40])
    sub(r6, r5, r6)
    lsl(r6, r6, 2)
    add(r6, r1, r6)
    b(Z1T)
    label(Z1)
    str(r7, [r1, 0])
    add(r1, 4)
    label(Z1T)
    cmp(r1, r6)
    blt(Z1)
    ldr(r6, [r2, 16])
    mul(r6, r4)
    ldr(r4, [r2, 72])
    add(r6, r6, r4)
    ldr(r4, [r2, 20])
    mul(r4, r5)
    add(r6, r6, r4)
    ldr(r4, [r2, 84])
    lsl(r4, r4, 2)
    sub(r6, r6, r4)  # x[c][iy][lo * sw - t]
    ldr(r4, [r2, 80])
    sub(r4, r4, r5)
    lsl(r4, r4, 2)
    add(r4, r1, r4)
    ldr(r5, [r2, 20])
    b(CPT)
    label(CP)
    ldr(r7, [r6, 0])
    str(r7, [r1, 0])
    add(r1, 4)
    add(r6, r6, r5)
    label(CPT)
    cmp(r1, r4)
    blt(CP)
    mov(r7, 0)
    label(ZROW)
    b(Z2T)
    label(Z2)
    str(r7, [r1, 0])
    add(r1, 4)
    label(Z2T)
    cmp(r1, r3)
    blt(Z2)
    ldr(r4, [r2, 68])
    ldr(r5, [r2, 24])
    add(r4, r4, r5)
    str(r4, [r2, 68])
    ldr(r4, [r2, 64])
    sub(r4, 1)
    str(r4, [r2, 64])
    ble(KXEND)
    b(RR)
    label(KXEND)
    ldr(r4, [r2, 60])
    add(r4, 1)
    str(r4, [r2, 60])
    ldr(r5, [r2, 8])
    cmp(r4, r5)
    bge(KYEND)
    b(KX)
    label(KYEND)
    ldr(r4, [r2, 56])
    add(r4, 1)
    str(r4, [r2, 56])
    ldr(r5, [r2, 4])
    cmp(r4, r5)
    bge(CEND)
    b(KY)
    label(CEND)
    ldr(r4, [r2, 72])
    ldr(r5, [r2, 32])
    add(r4, r4, r5)
    str(r4, [r2, 72])
    ldr(r4, [r2, 52])
    sub(r4, 1)
    str(r4, [r2, 52])
    ble(DONE)
    b(CH)
    label(DONE)
    mov(r0, 0)

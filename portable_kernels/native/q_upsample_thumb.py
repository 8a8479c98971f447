"""Arm Thumb step of mpy_et_quant::upsample_nearest2d
(quantized/op_upsample_nearest2d.py): q_upsample_viper's byte step in
assembler, the step itself an assembler function (native/thumb_steps.py).

An output row whose source row is the previous one's copies the output row
just written (as words where every row starts word-aligned: ~1.3
instructions per byte); a row of a 2x-wide output writes each source byte
twice (~3.5 per output byte); other rows read the column offsets table (~7).
The viper step takes ~30 per output byte on a Cortex-M. Imported only where
the port has @micropython.asm_thumb (emitters.HAS_THUMB); Thumb-1
instructions only (ldrb's register form as data()). Does not allocate.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.native.thumb_steps import address, at


def prepare(x, out, planes, h, w, oh, ow, rows, cols):
    """rows, cols: torch's source index of every output row / column."""
    double = 1 if ow == 2 * w and all(cols[i] == i >> 1 for i in range(ow)) else 0
    o = at(out)
    words = 0 if (o | ow) & 3 else 1
    offsets = array("i", [r * w for r in rows] + list(cols))  # source row and column byte offsets
    base = address(offsets)
    ctl = array("i", [at(x), o, planes, oh, ow, h * w, double, words, base, base + 4 * oh, 0, 0, 0, 0, 0])
    return _up, (ctl, x.buf, out.buf, offsets)


@micropython.asm_thumb
def _up(r0):
    # r0: the context's items; [0] the control array: [0] x [4] out [8] planes [12] oh
    # [16] ow [20] h * w [24] 2x wide [28] rows by words [32] rows' source offsets
    # [36] columns' source offsets; scratch: [40] plane [44] planes left [48] next row's
    # offset [52] the previous row's [56] rows left
    ldr(r0, [r0, 0])
    ldr(r0, [r0, 12])
    ldr(r1, [r0, 4])
    ldr(r2, [r0, 0])
    str(r2, [r0, 40])
    ldr(r2, [r0, 8])
    str(r2, [r0, 44])
    label(PLANE)
    ldr(r2, [r0, 32])
    str(r2, [r0, 48])
    ldr(r2, [r0, 12])
    str(r2, [r0, 56])
    mov(r2, 0)
    sub(r2, 1)
    str(r2, [r0, 52])
    label(ROW)
    ldr(r2, [r0, 48])
    ldr(r3, [r2, 0])  # the source row's offset
    add(r2, 4)
    str(r2, [r0, 48])
    ldr(r4, [r0, 16])
    add(r7, r1, r4)  # the output row's end
    ldr(r5, [r0, 52])
    str(r3, [r0, 52])
    cmp(r3, r5)
    beq(COPY)
    ldr(r4, [r0, 40])
    add(r3, r3, r4)  # the source row
    ldr(r4, [r0, 24])
    cmp(r4, 0)
    beq(GATHER)
    label(DOUBLE)
    ldrb(r5, [r3, 0])
    strb(r5, [r1, 0])
    strb(r5, [r1, 1])
    add(r3, 1)
    add(r1, 2)
    cmp(r1, r7)
    blt(DOUBLE)
    b(NEXT)
    label(GATHER)
    ldr(r6, [r0, 36])
    label(COL)
    ldr(r4, [r6, 0])
    data(2, 0x5D1D)  # ldrb r5, [r3, r4]
    strb(r5, [r1, 0])
    add(r1, 1)
    add(r6, 4)
    cmp(r1, r7)
    blt(COL)
    b(NEXT)
    label(COPY)
    sub(r2, r1, r4)  # the row just written
    ldr(r4, [r0, 28])
    cmp(r4, 0)
    beq(BYTES)
    label(WORDS)
    ldr(r5, [r2, 0])
    str(r5, [r1, 0])
    add(r2, 4)
    add(r1, 4)
    cmp(r1, r7)
    blt(WORDS)
    b(NEXT)
    label(BYTES)
    ldrb(r5, [r2, 0])
    strb(r5, [r1, 0])
    add(r2, 1)
    add(r1, 1)
    cmp(r1, r7)
    blt(BYTES)
    label(NEXT)
    ldr(r2, [r0, 56])
    sub(r2, 1)
    str(r2, [r0, 56])
    bgt(ROW)
    ldr(r2, [r0, 40])
    ldr(r3, [r0, 20])
    add(r2, r2, r3)
    str(r2, [r0, 40])
    ldr(r2, [r0, 44])
    sub(r2, 1)
    str(r2, [r0, 44])
    bgt(PLANE)
    mov(r0, 0)


noalloc.mark(_up)

"""Arm Thumb step of a strided gather of 4-byte elements (float32 / int32
permutes: attention's head reshuffles in a float transformer), the step
itself an assembler function called directly (native/thumb_steps.py: no
bytecode frame; gather_words_viper's walk at about 6 instructions a word).
The walk is loops.rows_plan's, written once into an int array at load: rows
of n words, x stepped by `step` inside a row, an odometer over the outer
dims between rows (a record of 4 words per outer dim: size, stride, back
step, count). Thumb-1 instructions only; imported only where the port has
@micropython.asm_thumb (emitters.HAS_THUMB). Does not allocate.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.native.thumb_steps import at


def prepare(x, out, plan, n, step, first=0):
    """(step, ctx) filling out (contiguous) from x's words at element first +
    the plan's offsets (loops.rows_plan over element strides: plan, n, step),
    or None where a tensor's offset is not word-aligned."""
    if (x.offset | out.offset) & 3:
        return None
    nd, sizes, sa, _, back_a, _, _, nrows, _ = plan
    ctl = [at(x) + 4 * first, at(out), nd, nrows, 4 * n, 4 * step]
    for d in range(nd):
        ctl += [sizes[d], 4 * sa[d], 4 * back_a[d], 0]
    return _gather, (array("i", ctl), x.buf, out.buf)


@micropython.asm_thumb
def _gather(r0):
    # r0: the context's items; [0] the control array: [0] x [4] o [8] outer dims
    # [12] rows [16] a row's bytes [20] x's byte step in a row, then per outer
    # dim from [24]: size, byte stride, byte back step, count
    ldr(r0, [r0, 0])
    ldr(r0, [r0, 12])
    mov(r4, r0)
    add(r4, 24)
    ldr(r6, [r0, 8])
    lsl(r6, r6, 4)
    add(r6, r6, r4)
    mov(r5, 0)
    label(RESET)
    sub(r6, 16)
    cmp(r6, r4)
    blt(RESET_DONE)
    str(r5, [r6, 12])
    b(RESET)
    label(RESET_DONE)
    ldr(r1, [r0, 0])
    ldr(r2, [r0, 4])
    ldr(r3, [r0, 12])
    cmp(r3, 0)
    ble(DONE)
    label(ROW)
    ldr(r4, [r0, 16])
    add(r4, r4, r2)
    mov(r5, r1)
    ldr(r6, [r0, 20])
    label(COPY)
    ldr(r7, [r5, 0])
    str(r7, [r2, 0])
    add(r5, r5, r6)
    add(r2, 4)
    cmp(r2, r4)
    blt(COPY)
    sub(r3, 1)
    cmp(r3, 0)
    beq(DONE)
    mov(r4, r0)
    add(r4, 24)
    ldr(r6, [r0, 8])
    sub(r6, 1)
    lsl(r6, r6, 4)
    add(r6, r6, r4)
    label(DIM)
    ldr(r7, [r6, 12])
    add(r7, 1)
    ldr(r5, [r6, 0])
    cmp(r7, r5)
    bge(CARRY)
    str(r7, [r6, 12])
    ldr(r5, [r6, 4])
    add(r1, r1, r5)
    b(ROW)
    label(CARRY)
    mov(r7, 0)
    str(r7, [r6, 12])
    ldr(r5, [r6, 8])
    sub(r1, r1, r5)
    sub(r6, 16)
    cmp(r6, r4)
    bge(DIM)
    b(ROW)
    label(DONE)
    mov(r0, 0)


noalloc.mark(_gather)

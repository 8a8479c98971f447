"""Arm Thumb step copying one byte range (a slice of the last dim, a select,
a view or clone: util/loops.copy_range), the step itself an assembler
function (native/thumb_steps.py: no bytecode frame per call; ~1,400
instructions for 32 bytes through a memoryview slice assignment on a
Cortex-M3, ~650 here). Words move as words when both ends and the length
are multiples of 4. Imported only where the port has @micropython.asm_thumb
(emitters.HAS_THUMB); Thumb-1 instructions only. Runs in place from ROMFS.
Does not allocate.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.native.thumb_steps import address


def prepare(dst, d, src, s, n):
    """(step, ctx): n bytes from buffer src's byte s to buffer dst's byte d."""
    d += address(dst)
    s += address(src)
    ctl = array("i", [d, s, d + n, 0 if (d | s | n) & 3 else 1])
    return _copy, (ctl, dst, src)  # the buffers are kept alive by the step


@micropython.asm_thumb
def _copy(r0):
    # r0: the context's items; [0] the control array: [0] dst [4] src [8] dst's end [12] by words
    ldr(r0, [r0, 0])
    ldr(r0, [r0, 12])
    ldr(r1, [r0, 0])
    ldr(r2, [r0, 4])
    ldr(r3, [r0, 8])
    ldr(r4, [r0, 12])
    cmp(r1, r3)
    bge(DONE)
    cmp(r4, 0)
    beq(BYTES)
    label(WORDS)
    ldr(r5, [r2, 0])
    str(r5, [r1, 0])
    add(r1, 4)
    add(r2, 4)
    cmp(r1, r3)
    blt(WORDS)
    b(DONE)
    label(BYTES)
    ldrb(r5, [r2, 0])
    strb(r5, [r1, 0])
    add(r1, 1)
    add(r2, 1)
    cmp(r1, r3)
    blt(BYTES)
    label(DONE)
    mov(r0, 0)


def merge(steps):
    """One step for several (step, ctx) of prepare() (split_with_sizes' pieces,
    run one after another): one call instead of a bytecode loop calling each;
    None when a step is not prepare()'s. Load time."""
    words = [len(steps)]
    keep = ()
    for step, ctx in steps:
        if step is not _copy:
            return None
        words.extend(ctx[0])
        keep += ctx[1:]
    return _copies, (array("i", words),) + keep


@micropython.asm_thumb
def _copies(r0):
    # r0: the context's items; [0] the control array: [0] the number of ranges, then
    # per range prepare()'s four words: dst, src, dst's end, by words
    ldr(r0, [r0, 0])
    ldr(r0, [r0, 12])
    ldr(r7, [r0, 0])
    label(RANGE)
    add(r0, 4)
    ldr(r1, [r0, 0])
    ldr(r2, [r0, 4])
    ldr(r3, [r0, 8])
    ldr(r4, [r0, 12])
    add(r0, 12)
    cmp(r1, r3)
    bge(NEXT)
    cmp(r4, 0)
    beq(BYTES)
    label(WORDS)
    ldr(r5, [r2, 0])
    str(r5, [r1, 0])
    add(r1, 4)
    add(r2, 4)
    cmp(r1, r3)
    blt(WORDS)
    b(NEXT)
    label(BYTES)
    ldrb(r5, [r2, 0])
    strb(r5, [r1, 0])
    add(r1, 1)
    add(r2, 1)
    cmp(r1, r3)
    blt(BYTES)
    label(NEXT)
    sub(r7, 1)
    bgt(RANGE)
    mov(r0, 0)


noalloc.mark(_copy, _copies)

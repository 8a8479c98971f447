"""Arm Thumb steps for the attention's guard of fully masked rows (eq.Scalar,
logical_not, full_like, where.self, from the export of scaled dot-product
attention) and the like: comparisons of 32-bit words with a constant into
bools, logical_not of bools, filling words, and where() picking words under a
bool condition. Each step is itself an assembler function called directly
(native/thumb_steps.py: no bytecode frame, no boxed float: does not
allocate). Thumb-1 instructions only; imported only where the port has
@micropython.asm_thumb (emitters.HAS_THUMB). Runs in place from ROMFS.

A float32 compares equal to a constant exactly when its bits do under a
mask (util/compare.py picks it): every bit for a number, all but the sign
for zero (-0.0 == 0.0), none for NaN with a value the masked bits never take
(NaN equals nothing); a NaN's bits never equal a number's, so x == c needs
no other test.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.native.thumb_steps import at


def compare(x, o, mask, value, when_equal):
    """(step, ctx): o[i] = when_equal if (x[i]'s 32 bits & mask) == value else
    not when_equal, over x's elements (4 bytes each) into bools. mask None:
    value is a float32 c, and the test is x == c."""
    if mask is None:
        if value != value:
            mask, value = 0, 1  # NaN equals nothing
        elif value == 0.0:
            mask, value = 0x7FFFFFFF, 0  # -0.0 == 0.0
        else:
            mask, value = -1, array("i", bytes(array("f", [value])))[0]
    eq = 1 if when_equal else 0
    ctl = array("i", [at(x), at(o), o.numel, mask, value, (1 - eq) | eq << 8])
    return _compare, (ctl, x.buf, o.buf)


def logical_not(x, o):
    """(step, ctx): o[i] = x[i] == 0 over bytes (bool or uint8 x) into bools."""
    ctl = array("i", [at(x), at(o), o.numel])
    return _not, (ctl, x.buf, o.buf)


def fill(o, word):
    """(step, ctx): every 32-bit word of o (4 * k bytes) set to word."""
    ctl = array("i", [at(o), o.nbytes // 4, word])
    return _fill, (ctl, o.buf)


def where(cond, a, b, o, run):
    """(step, ctx): o[i] = a[i] if cond[i // run] else b[i] over 32-bit words (a,
    b and o of one shape; cond one bool per run of elements)."""
    ctl = array("i", [at(cond), at(a), at(b), at(o), 4 * o.numel, 4 * run])
    return _where, (ctl, cond.buf, a.buf, b.buf, o.buf)


@micropython.asm_thumb
def _compare(r0):
    # r0: the context's items; [0] the control array: [0] x [4] o [8] n [12] mask
    # [16] value [20] byte if different | byte if equal << 8
    ldr(r0, [r0, 0])
    ldr(r0, [r0, 12])
    ldr(r1, [r0, 0])
    ldr(r2, [r0, 4])
    ldr(r3, [r0, 8])
    add(r3, r3, r2)
    ldr(r4, [r0, 12])
    ldr(r5, [r0, 16])
    ldr(r6, [r0, 20])
    cmp(r2, r3)
    bge(DONE)
    label(LOOP)
    ldr(r7, [r1, 0])
    and_(r7, r4)
    mov(r0, r6)
    cmp(r7, r5)
    bne(STORE)
    lsr(r0, r6, 8)
    label(STORE)
    strb(r0, [r2, 0])
    add(r1, 4)
    add(r2, 1)
    cmp(r2, r3)
    blt(LOOP)
    label(DONE)
    mov(r0, 0)


@micropython.asm_thumb
def _not(r0):
    # r0: the context's items; [0] the control array: [0] x [4] o [8] n
    ldr(r0, [r0, 0])
    ldr(r0, [r0, 12])
    ldr(r1, [r0, 0])
    ldr(r2, [r0, 4])
    ldr(r3, [r0, 8])
    add(r3, r3, r2)
    cmp(r2, r3)
    bge(DONE)
    label(LOOP)
    ldrb(r4, [r1, 0])
    mov(r5, 1)
    cmp(r4, 0)
    beq(STORE)
    mov(r5, 0)
    label(STORE)
    strb(r5, [r2, 0])
    add(r1, 1)
    add(r2, 1)
    cmp(r2, r3)
    blt(LOOP)
    label(DONE)
    mov(r0, 0)


@micropython.asm_thumb
def _fill(r0):
    # r0: the context's items; [0] the control array: [0] o [4] words [8] the word
    ldr(r0, [r0, 0])
    ldr(r0, [r0, 12])
    ldr(r1, [r0, 0])
    ldr(r2, [r0, 4])
    lsl(r2, r2, 2)
    add(r2, r2, r1)
    ldr(r3, [r0, 8])
    cmp(r1, r2)
    bge(DONE)
    label(LOOP)
    str(r3, [r1, 0])
    add(r1, 4)
    cmp(r1, r2)
    blt(LOOP)
    label(DONE)
    mov(r0, 0)


@micropython.asm_thumb
def _where(r0):
    # r0: the context's items; [0] the control array: [0] cond [4] a [8] b [12] o
    # [16] o's bytes [20] bytes per condition
    ldr(r0, [r0, 0])
    ldr(r0, [r0, 12])
    ldr(r1, [r0, 0])
    ldr(r2, [r0, 4])
    ldr(r3, [r0, 8])
    ldr(r4, [r0, 12])
    ldr(r5, [r0, 16])
    add(r5, r5, r4)
    ldr(r6, [r0, 20])
    label(ROW)
    cmp(r4, r5)
    bge(DONE)
    add(r0, r4, r6)
    ldrb(r7, [r1, 0])
    add(r1, 1)
    cmp(r7, 0)
    beq(OTHER)
    label(SELF)
    ldr(r7, [r2, 0])
    str(r7, [r4, 0])
    add(r2, 4)
    add(r3, 4)
    add(r4, 4)
    cmp(r4, r0)
    blt(SELF)
    b(ROW)
    label(OTHER)
    ldr(r7, [r3, 0])
    str(r7, [r4, 0])
    add(r2, 4)
    add(r3, 4)
    add(r4, 4)
    cmp(r4, r0)
    blt(OTHER)
    b(ROW)
    label(DONE)
    mov(r0, 0)


noalloc.mark(_compare, _not, _fill, _where)

"""Arm Thumb window sum of the int8 average pooling (native/q_pool_viper.py): imported
only where the port has @micropython.asm_thumb (emitters.HAS_THUMB), for windows of
16 bytes or more (a viper byte loop costs ~40 instructions per byte on Thumb, this one 5;
a call from viper costs more than a small window's loop).

wsum(x, offset, g) = sum(x + 128) over the window whose first byte is x[offset]: g is
q_pool_viper's int32 words (g[4] input width, g[5] kh, g[6] kw). Thumb-1 only (every Arm
arch). Reads only; returns the sum (at most 255 * kh * kw: a small int).
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
import micropython


@micropython.asm_thumb
def wsum(r0, r1, r2):
    add(r0, r0, r1)  # the window's first byte
    ldr(r3, [r2, 20])  # kh rows left
    ldr(r4, [r2, 24])  # kw
    ldr(r5, [r2, 16])  # w
    mov(r6, 0)
    label(ROW)
    mov(r1, 0)
    label(COL)
    data(2, 0x5647)  # ldrsb r7, [r0, r1]
    add(r6, r6, r7)
    add(r1, 1)
    cmp(r1, r4)
    blt(COL)
    add(r0, r0, r5)
    sub(r3, 1)
    bgt(ROW)
    ldr(r3, [r2, 20])
    mul(r3, r4)
    lsl(r3, r3, 7)
    add(r0, r6, r3)  # + 128 per byte

"""Arm Thumb-2 pass of mpy_et_quant::layer_norm (native/q_layer_norm_viper.py
computes each row's (S1, j + F, r) first): every channel normalized and
requantized as q_layer_norm_viper._apply, with SDIV for the floor division

    u = floor(((n * (x - zx) - S1) << (j + F)) / r)
    acc = clamp(sign_c * u + B_c, -L, L)
    out = clamp(zo + requant(acc), -128, 127)      (requant.py's evaluation)

An assembler function called with its own (control, stats, buffers...) tuple
(native/thumb_steps.py). SDIV is Thumb-2: imported where emitters.THUMB2.
Runs in place from ROMFS. Does not allocate.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from portable_kernels.native.thumb_steps import at


def prepare(x, out, rows, n, zx, zo, requant_t, offsets, st):
    """(function, its context) for q_layer_norm_viper._step_thumb."""
    ctl = array("i", [at(x), at(out), at(requant_t), at(offsets), rows, n, 128 + zx, zo, 0x7FFF] + [0] * 10)
    return _apply, (ctl, st, x.buf, out.buf, requant_t.buf, offsets.buf)


@micropython.asm_thumb
def _apply(r0):
    # r0: the context's items; [0] the control array: [0] x [4] out [8] (M, s, L)
    # per channel [12] (sign, bias) per channel [16] rows [20] n [24] 128 + zx [28] zo
    # [32] 0x7FFF; scratch: [40] rows left [44] the row's stats [48] S1 [52] j + F
    # [56] r [60] the row's end; [1] the stats array (S1, j + F, r per row)
    ldr(r3, [r0, 0])
    ldr(r3, [r3, 12])
    ldr(r4, [r0, 4])
    ldr(r4, [r4, 12])
    str(r4, [r3, 44])
    ldr(r1, [r3, 0])
    ldr(r2, [r3, 4])
    ldr(r4, [r3, 16])
    str(r4, [r3, 40])
    cmp(r4, 0)
    ble(DONE)
    label(ROW)
    ldr(r4, [r3, 44])
    ldr(r5, [r4, 0])
    mov(r0, 1)
    lsl(r0, r0, 16)
    sub(r5, r5, r0)  # stored as S1 + 2**16
    str(r5, [r3, 48])
    ldr(r5, [r4, 4])
    str(r5, [r3, 52])
    ldr(r5, [r4, 8])
    str(r5, [r3, 56])
    add(r4, 12)
    str(r4, [r3, 44])
    ldr(r5, [r3, 20])
    add(r5, r1, r5)
    str(r5, [r3, 60])
    ldr(r6, [r3, 8])
    ldr(r7, [r3, 12])
    label(EL)
    ldrb(r4, [r1, 0])
    mov(r5, 0x80)
    eor(r4, r5)
    ldr(r5, [r3, 24])
    sub(r4, r4, r5)  # x - zx
    ldr(r5, [r3, 20])
    mul(r4, r5)
    ldr(r5, [r3, 48])
    sub(r4, r4, r5)  # t = n * (x - zx) - S1
    ldr(r5, [r3, 52])
    lsl(r4, r5)
    ldr(r5, [r3, 56])
    data(
        2, 0xFB94, 0xF0F5
    )  # sdiv(r0, r4, r5), Thumb-2 only (data: the module also compiles for armv6m, where it is never used); toward zero; floor: one less when negative and inexact
    cmp(r4, 0)
    bge(FLOOR)
    mul(r5, r0)
    cmp(r5, r4)
    beq(FLOOR)
    sub(r0, 1)
    label(FLOOR)
    ldr(r4, [r7, 4])  # bias
    ldr(r5, [r7, 0])  # sign
    add(r7, 8)
    cmp(r5, 1)
    bne(NEG)
    add(r4, r4, r0)
    b(ACC)
    label(NEG)
    sub(r4, r4, r0)
    label(ACC)
    ldr(r5, [r6, 8])
    cmp(r4, r5)
    ble(A)
    mov(r4, r5)
    label(A)
    neg(r5, r5)
    cmp(r4, r5)
    bge(B)
    mov(r4, r5)
    label(B)
    ldr(r5, [r6, 4])
    cmp(r5, 22)  # s >= requant.SPLIT_FROM: the split multiply
    bge(SPL)
    ldr(r0, [r6, 0])
    mul(r4, r0)
    sub(r5, 1)
    mov(r0, 1)
    lsl(r0, r5)
    add(r4, r4, r0)
    add(r5, 1)
    asr(r4, r5)
    b(RQD)
    label(SPL)
    ldr(r5, [r3, 32])
    mov(r0, r4)
    and_(r0, r5)
    ldr(r5, [r6, 0])
    mul(r0, r5)
    asr(r0, r0, 15)
    asr(r4, r4, 15)
    mul(r4, r5)
    add(r4, r4, r0)
    ldr(r5, [r6, 4])
    sub(r5, 16)
    mov(r0, 1)
    lsl(r0, r5)
    add(r4, r4, r0)
    add(r5, 1)
    asr(r4, r5)
    label(RQD)
    add(r6, 12)
    ldr(r5, [r3, 28])
    add(r4, r4, r5)
    mov(r5, 127)
    cmp(r4, r5)
    ble(C)
    mov(r4, r5)
    label(C)
    mov(r5, 128)
    neg(r5, r5)
    cmp(r4, r5)
    bge(D)
    mov(r4, r5)
    label(D)
    strb(r4, [r2, 0])
    add(r1, 1)
    add(r2, 1)
    ldr(r5, [r3, 60])
    cmp(r1, r5)
    bge(ROWEND)
    b(EL)
    label(ROWEND)
    ldr(r4, [r3, 40])
    sub(r4, 1)
    str(r4, [r3, 40])
    ble(DONE)
    b(ROW)
    label(DONE)
    mov(r0, 0)

"""Arm Thumb step of mpy_et_quant::bmm (quantized/op_bmm.py): q_bmm_viper's
integers in assembler (attention's products in an int8 transformer: short
rows, so the per-output requantization weighs as much as the dot), for
boards with Thumb-2 (emitters.THUMB2). Bit-identical with the pure-Python and
viper steps: operands sign-extended (SXTB) less their zero points, a 32-bit
dot, then q_requant.requant's integers word for word:

    acc = clamp(acc, -L, L)
    r = (acc * M + 2**(s-1)) >> s                                  (s < 22)
    r = ((acc >> 15) * M + (((acc & 0x7FFF) * M) >> 15) + 2**(s-16)) >> (s-15)
    out = clamp(zo + r, lo, hi)

(32-bit wrapping products and arithmetic shifts, as viper's ints on a 32-bit
board). Does not allocate. SXTB and the high-register adds are emitted
with data(), everything else is a Thumb-1 mnemonic.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from mpy_et import noalloc

# only Thumb-2 dists carry it (host_tools/deploy/build_targets.march_list)
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")


def prepare(a, b, out, nb, m, k, n, za, zb, mult, s, lim, zo, lo, hi):
    """q_bmm_viper.prepare's arguments; the parameters in one int32 array
    (15 words, as q_bmm_viper's)."""
    p = array("i", [nb, m, k, n, za, zb, mult, s, lim, zo, lo, hi, a.offset, b.offset, out.offset])
    return _step, (a.buf, b.buf, out.buf, p)


def _step(ctx):
    _bmm(ctx[0], ctx[1], ctx[2], ctx[3])


noalloc.mark(_step)


@micropython.asm_thumb
def _bmm(r0, r1, r2, r3):
    # r3 p: [0] batches [4] m [8] k [12] n [16] za [20] zb [24] M [28] s
    # [32] L [36] zo [40] lo [44] hi [48..56] byte offsets of a, b, out (the
    # step keeps the a row, b batch and out cursor there and puts the offsets
    # back at the end: no state words per instruction). r8 n (b's row stride
    # in bytes), r9 batches left, r10 rows left, r12 columns left, lr b
    # column, r11 p
    mov(r4, r8)
    mov(r5, r9)
    mov(r6, r10)
    mov(r7, r11)
    push({r4, r5, r6, r7})
    mov(r11, r3)
    ldr(r4, [r3, 48])
    ldr(r5, [r3, 52])
    ldr(r6, [r3, 56])
    push({r4, r5, r6})
    add(r0, r0, r4)
    str(r0, [r3, 48])
    add(r1, r1, r5)
    str(r1, [r3, 52])
    add(r2, r2, r6)
    str(r2, [r3, 56])
    ldr(r4, [r3, 12])
    mov(r8, r4)
    ldr(r4, [r3, 0])
    mov(r9, r4)
    label(BATCH)
    ldr(r4, [r3, 4])
    mov(r10, r4)
    label(ROW)
    ldr(r4, [r3, 12])
    mov(r12, r4)
    ldr(r4, [r3, 52])
    mov(lr, r4)
    label(COL)
    ldr(r0, [r3, 48])
    mov(r1, lr)
    add(r4, r1, 1)
    mov(lr, r4)
    ldr(r6, [r3, 16])
    ldr(r7, [r3, 20])
    ldr(r4, [r3, 8])
    add(r3, r0, r4)  # the end of a's row
    mov(r2, 0)
    label(DOT)
    ldrb(r4, [r0, 0])
    add(r0, 1)
    data(2, 0xB264)  # sxtb r4, r4
    sub(r4, r4, r6)
    ldrb(r5, [r1, 0])
    data(2, 0x4441)  # add r1, r8
    data(2, 0xB26D)  # sxtb r5, r5
    sub(r5, r5, r7)
    mul(r4, r5)
    add(r2, r2, r4)
    cmp(r0, r3)
    bne(DOT)
    mov(r3, r11)
    ldr(r4, [r3, 32])  # clamp to +-L
    cmp(r2, r4)
    ble(L1)
    mov(r2, r4)
    label(L1)
    neg(r4, r4)
    cmp(r2, r4)
    bge(L2)
    mov(r2, r4)
    label(L2)
    ldr(r5, [r3, 24])
    ldr(r6, [r3, 28])
    cmp(r6, 22)
    bge(SPLIT)
    mul(r2, r5)
    sub(r7, r6, 1)
    mov(r4, 1)
    lsl(r4, r7)
    add(r2, r2, r4)
    asr(r2, r6)
    b(RQ)
    label(SPLIT)
    asr(r4, r2, 15)
    mul(r4, r5)
    lsl(r7, r2, 17)
    lsr(r7, r7, 17)
    mul(r7, r5)
    asr(r7, r7, 15)
    add(r4, r4, r7)
    mov(r7, r6)
    sub(r7, 16)
    mov(r0, 1)
    lsl(r0, r7)
    add(r4, r4, r0)
    mov(r7, r6)
    sub(r7, 15)
    asr(r4, r7)
    mov(r2, r4)
    label(RQ)
    ldr(r4, [r3, 36])
    add(r2, r2, r4)
    ldr(r4, [r3, 40])
    cmp(r2, r4)
    bge(L3)
    mov(r2, r4)
    label(L3)
    ldr(r4, [r3, 44])
    cmp(r2, r4)
    ble(L4)
    mov(r2, r4)
    label(L4)
    ldr(r4, [r3, 56])
    strb(r2, [r4, 0])
    add(r4, 1)
    str(r4, [r3, 56])
    mov(r4, r12)
    sub(r4, 1)
    mov(r12, r4)
    bne(COL)
    ldr(r4, [r3, 48])
    ldr(r5, [r3, 8])
    add(r4, r4, r5)
    str(r4, [r3, 48])
    mov(r4, r10)
    sub(r4, 1)
    mov(r10, r4)
    bne(ROW)
    ldr(r4, [r3, 8])
    ldr(r5, [r3, 12])
    mul(r4, r5)
    ldr(r5, [r3, 52])
    add(r5, r5, r4)
    str(r5, [r3, 52])
    mov(r4, r9)
    sub(r4, 1)
    mov(r9, r4)
    bne(BATCH)
    pop({r4, r5, r6})
    str(r4, [r3, 48])
    str(r5, [r3, 52])
    str(r6, [r3, 56])
    pop({r4, r5, r6, r7})
    mov(r8, r4)
    mov(r9, r5)
    mov(r10, r6)
    mov(r11, r7)
    mov(r0, 0)

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
    """q_bmm_viper.prepare's arguments; the parameters and the loops' state
    in one int32 array (22 words)."""
    p = array("i", [nb, m, k, n, za, zb, mult, s, lim, zo, lo, hi, a.offset, b.offset, out.offset] + [0] * 7)
    return _step, (a.buf, b.buf, out.buf, p)


def _step(ctx):
    _bmm(ctx[0], ctx[1], ctx[2], ctx[3])


noalloc.mark(_step)


@micropython.asm_thumb
def _bmm(r0, r1, r2, r3):
    # r3 p: [0] batches [4] m [8] k [12] n [16] za [20] zb [24] M [28] s
    # [32] L [36] zo [40] lo [44] hi [48..56] byte offsets of a, b, out;
    # state: [60] a row [64] b batch [68] out cursor [72] batches left
    # [76] rows left [80] columns left [84] b column. r8 n (b's row stride
    # in bytes), r11 p
    mov(r4, r8)
    mov(r5, r9)
    mov(r6, r10)
    mov(r7, r11)
    push({r4, r5, r6, r7})
    mov(r11, r3)
    ldr(r4, [r3, 48])
    add(r0, r0, r4)
    str(r0, [r3, 60])
    ldr(r4, [r3, 52])
    add(r1, r1, r4)
    str(r1, [r3, 64])
    ldr(r4, [r3, 56])
    add(r2, r2, r4)
    str(r2, [r3, 68])
    ldr(r4, [r3, 12])
    mov(r8, r4)
    ldr(r4, [r3, 0])
    str(r4, [r3, 72])
    label(BATCH)
    ldr(r4, [r3, 4])
    str(r4, [r3, 76])
    label(ROW)
    ldr(r4, [r3, 12])
    str(r4, [r3, 80])
    ldr(r4, [r3, 64])
    str(r4, [r3, 84])
    label(COL)
    ldr(r0, [r3, 60])
    ldr(r1, [r3, 84])
    add(r4, r1, 1)
    str(r4, [r3, 84])
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
    ldr(r4, [r3, 68])
    strb(r2, [r4, 0])
    add(r4, 1)
    str(r4, [r3, 68])
    ldr(r4, [r3, 80])
    sub(r4, 1)
    str(r4, [r3, 80])
    bne(COL)
    ldr(r4, [r3, 60])
    ldr(r5, [r3, 8])
    add(r4, r4, r5)
    str(r4, [r3, 60])
    ldr(r4, [r3, 76])
    sub(r4, 1)
    str(r4, [r3, 76])
    bne(ROW)
    ldr(r4, [r3, 8])
    ldr(r5, [r3, 12])
    mul(r4, r5)
    ldr(r5, [r3, 64])
    add(r5, r5, r4)
    str(r5, [r3, 64])
    ldr(r4, [r3, 72])
    sub(r4, 1)
    str(r4, [r3, 72])
    bne(BATCH)
    pop({r4, r5, r6, r7})
    mov(r8, r4)
    mov(r9, r5)
    mov(r10, r6)
    mov(r11, r7)
    mov(r0, 0)

"""The weight words of native/q_conv_mla_dsp.rows_oc, expanded from the packed weights on
every run into one shared scratch buffer (Arm DSP extension: emitters.DSP, Cortex-M4 / M7),
so that no instruction keeps its own copy in RAM ("transform at export, view at load").

expand(wt, out, ctl) writes into out (int32, opg * (1 + 2 * cpg * kh) words) exactly what
q_conv_mla_dsp.oc_weights returns for the packed weights wt (uint8 w + 128,
host_tools/quantize/pack.py: each output channel's K = cpg * kh * 3 bytes padded to kp, channel
pairs interleaved 4 bytes at a time, a last odd channel plain):
    out[ch] = 128 * sum(w(ch, k) for k < K)
    out[opg + 2 * (r * opg + ch)] = (w(ch, 3r) & 0xFFFF) | w(ch, 3r + 2) << 16
    out[opg + 2 * (r * opg + ch) + 1] = w(ch, 3r + 1)
for r < cpg * kh; padding bytes are never read into a result. ctl: control(opg, cpg, kh, kp)
(load time). wt and out must be word-aligned (LDM, STM, STRD: a .pte constant is 16-aligned,
a heap buffer too). Returns 0; writes only out; does not allocate.

A channel pair's 4 kernel rows are 3 words of each channel (one LDM of 4 words, one of 2):
EOR 0x80808080 turns w + 128 into w, SXTB16 / SXTB (rotated) give a row's (w0, w2) lanes and
its w1, PKHBT joins the two words a row straddles, USADA8 adds the bytes for the sums, and one
STM writes a row of both channels: 45 instructions per 8 (row, channel). The 1 to 3 rows after
the whole groups of 4 take the pair's last words in registers (the padding bytes masked off),
a row of a channel per STRD. A last odd channel takes 27 instructions per 4 rows (STRD per
row), then 15 per row left. Measured on the cortex-m7 board (QEMU -icount;
benchmarks/bench_oc_weights.py, oc_weights.md): opg 8, cpg 16, kh 3: 2,285 instructions a call,
5.95 per (row, channel); opg 16, cpg 8, kh 3: 2,389, 6.22 (the Python oc_weights: 3,026,000
and 3,025,000; h56's viper loop at load, _pack: 77,000 each).
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

# Thumb-2 dists (as native/q_dot_dsp.py: whether the CPU has the DSP extension is read on the device)
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")


def control(opg, cpg, kh, kp):
    """expand's control words (load time; does not change): opg, R = cpg * kh kernel rows,
    kp, channel pairs, 24 * G (G = R // 4: whole groups of 4 rows), 8 * opg, R % 4,
    -128 * 3 * R, 2 * kp - 24 * G, 16 - 32 * G * opg, 12 * G, the bytes of the last word
    before the padding, -1536 * G."""
    rows = cpg * kh
    g, rem = rows >> 2, rows & 3
    last = (1 << (32 - 8 * rem)) - 1 if rem else 0
    return array(
        "i", [opg, rows, kp, opg >> 1, 24 * g, 8 * opg, rem, -384 * rows, 2 * kp - 24 * g, 16 - 32 * g * opg, 12 * g, last, -1536 * g]
    )


@micropython.asm_thumb
def expand(r0, r1, r2):
    # r0 the packed weights, r1 out, r2 ctl (control()). Pair loop: r0 the pair's words,
    # r1 its row, r2 8 * opg, r3 r4 the two sums, r5 0, r6-r9 the words, r10-r12 lr a row
    # (each data() is the encoding of the instruction in its comment: llvm-mc -triple=thumbv7em
    # -mcpu=cortex-m7 -show-encoding)
    data(2, 0xE92D, 0x0F00)  # push {r8, r9, r10, r11}
    data(2, 0xB086)  # sub sp, #24: [sp]: ctl, sums, pairs left, end, q
    data(2, 0x9200)  # str r2, [sp, #0]
    data(2, 0x9101)  # str r1, [sp, #4]: the next channel's sum
    ldr(r3, [r2, 0])
    lsl(r3, r3, 2)
    add(r1, r1, r3)  # q: row 0 of the first channel
    ldr(r3, [r2, 12])  # channel pairs
    ldr(r2, [r2, 20])  # S = 8 * opg: one row further
    mov(r5, 0)
    cmp(r3, 0)
    bne(PAIRS)
    b(ODD)
    label(PAIRS)
    data(2, 0x9302)  # str r3, [sp, #8]: pairs left
    label(PAIR)
    data(2, 0x9E00)  # ldr r6, [sp, #0]
    ldr(r3, [r6, 28])  # -128 * 3 * R: the sums of w + 128 less 128 per byte
    mov(r4, r3)
    ldr(r7, [r6, 16])  # 24 * groups: the pair's whole groups of 4 rows
    add(r7, r7, r0)
    data(2, 0x9703)  # str r7, [sp, #12]
    cmp(r0, r7)
    bge(PTAIL)
    label(GL)
    data(2, 0xE8B0, 0x03C0)  # ldm.w r0!, {r6, r7, r8, r9}: (A0, A1, B0, B1): words 0, 1 of each channel (w + 128)
    data(2, 0xFB76, 0x3305)  # usada8 r3, r6, r5, r3: s0 += the bytes of A0
    data(2, 0xFB77, 0x4405)  # usada8 r4, r7, r5, r4
    data(2, 0xFB78, 0x3305)  # usada8 r3, r8, r5, r3
    data(2, 0xFB79, 0x4405)  # usada8 r4, r9, r5, r4
    data(2, 0xF086, 0x3680)  # eor r6, r6, #0x80808080: w + 128 -> w (signed bytes)
    data(2, 0xF087, 0x3780)  # eor r7, r7, #0x80808080
    data(2, 0xF088, 0x3880)  # eor r8, r8, #0x80808080
    data(2, 0xF089, 0x3980)  # eor r9, r9, #0x80808080
    data(2, 0xFA2F, 0xFA86)  # sxtb16 r10, r6: row 0: (k0, k2)
    data(2, 0xFA4F, 0xFB96)  # sxtb.w r11, r6, ror #8: k1
    data(2, 0xFA2F, 0xFC87)  # sxtb16 r12, r7
    data(2, 0xFA4F, 0xFE97)  # sxtb.w lr, r7, ror #8
    data(2, 0xE881, 0x5C00)  # stm.w r1, {r10, r11, r12, lr}
    add(r1, r1, r2)
    data(2, 0xEAC8, 0x0A06)  # pkhbt r10, r8, r6: row 1: (k4, k5, k2, k3)
    data(2, 0xFA2F, 0xFABA)  # sxtb16 r10, r10, ror #24: (k3, k5)
    data(2, 0xFA4F, 0xFB88)  # sxtb.w r11, r8: k4
    data(2, 0xEAC9, 0x0C07)  # pkhbt r12, r9, r7
    data(2, 0xFA2F, 0xFCBC)  # sxtb16 r12, r12, ror #24
    data(2, 0xFA4F, 0xFE89)  # sxtb.w lr, r9
    data(2, 0xE881, 0x5C00)  # stm.w r1, {r10, r11, r12, lr}
    add(r1, r1, r2)
    data(2, 0xC8C0)  # ldm r0!, {r6, r7}: (C0, C1): words 2
    data(2, 0xFB76, 0x3305)  # usada8 r3, r6, r5, r3
    data(2, 0xFB77, 0x4405)  # usada8 r4, r7, r5, r4
    data(2, 0xF086, 0x3680)  # eor r6, r6, #0x80808080
    data(2, 0xF087, 0x3780)  # eor r7, r7, #0x80808080
    data(2, 0xEAC6, 0x0A08)  # pkhbt r10, r6, r8: row 2: (k8, k9, k6, k7)
    data(2, 0xFA2F, 0xFAAA)  # sxtb16 r10, r10, ror #16: (k6, k8)
    data(2, 0xFA4F, 0xFBB8)  # sxtb.w r11, r8, ror #24: k7
    data(2, 0xEAC7, 0x0C09)  # pkhbt r12, r7, r9
    data(2, 0xFA2F, 0xFCAC)  # sxtb16 r12, r12, ror #16
    data(2, 0xFA4F, 0xFEB9)  # sxtb.w lr, r9, ror #24
    data(2, 0xE881, 0x5C00)  # stm.w r1, {r10, r11, r12, lr}
    add(r1, r1, r2)
    data(2, 0xFA2F, 0xFA96)  # sxtb16 r10, r6, ror #8: row 3: (k9, k11)
    data(2, 0xFA4F, 0xFBA6)  # sxtb.w r11, r6, ror #16: k10
    data(2, 0xFA2F, 0xFC97)  # sxtb16 r12, r7, ror #8
    data(2, 0xFA4F, 0xFEA7)  # sxtb.w lr, r7, ror #16
    data(2, 0xE881, 0x5C00)  # stm.w r1, {r10, r11, r12, lr}
    add(r1, r1, r2)
    data(2, 0xF8DD, 0xA00C)  # ldr.w r10, [sp, #12]
    data(2, 0x4550)  # cmp r0, r10
    blt(GL)
    label(PTAIL)
    data(2, 0x9E00)  # ldr r6, [sp, #0]
    ldr(r7, [r6, 24])  # rows after the whole groups: 1 to 3 words of each channel
    cmp(r7, 0)
    bne(TAILS)
    label(SUMS)
    data(2, 0x9F01)  # ldr r7, [sp, #4]
    lsl(r3, r3, 7)
    lsl(r4, r4, 7)
    data(2, 0xE8E7, 0x3402)  # strd r3, r4, [r7], #8: the pair's 128 * sum(w)
    data(2, 0x9701)  # str r7, [sp, #4]
    ldr(r7, [r6, 32])  # the next pair's words
    add(r0, r0, r7)
    ldr(r7, [r6, 36])  # and its row 0
    add(r1, r1, r7)
    data(2, 0x9F02)  # ldr r7, [sp, #8]
    sub(r7, 1)
    data(2, 0x9702)  # str r7, [sp, #8]
    ble(TOODD)
    b(PAIR)
    label(TOODD)
    b(ODD)
    label(TAILS)
    data(2, 0xF8D6, 0xC02C)  # ldr.w r12, [r6, #44]: the last word's bytes before the padding
    data(2, 0xF04F, 0x0800)  # mov.w r8, #0
    mov(r9, r8)
    mov(r10, r8)
    mov(r11, r8)
    data(2, 0x9104)  # str r1, [sp, #16]
    cmp(r7, 2)
    data(2, 0xE9D0, 0x6700)  # ldrd r6, r7, [r0]: (A0, A1)
    blt(T1)
    data(2, 0xE9D0, 0x8902)  # ldrd r8, r9, [r0, #8]: (B0, B1)
    beq(T2)
    data(2, 0xE9D0, 0xAB04)  # ldrd r10, r11, [r0, #16]: (C0, C1)
    data(2, 0xEA0A, 0x0A0C)  # and.w r10, r10, r12: padding -> 0
    data(2, 0xEA0B, 0x0B0C)  # and.w r11, r11, r12
    b(TS)
    label(T2)
    data(2, 0xEA08, 0x080C)  # and.w r8, r8, r12
    data(2, 0xEA09, 0x090C)  # and.w r9, r9, r12
    b(TS)
    label(T1)
    data(2, 0xEA06, 0x060C)  # and.w r6, r6, r12
    data(2, 0xEA07, 0x070C)  # and.w r7, r7, r12
    label(TS)
    data(2, 0xFB76, 0x3305)  # usada8 r3, r6, r5, r3
    data(2, 0xFB77, 0x4405)  # usada8 r4, r7, r5, r4
    data(2, 0xFB78, 0x3305)  # usada8 r3, r8, r5, r3
    data(2, 0xFB79, 0x4405)  # usada8 r4, r9, r5, r4
    data(2, 0xFB7A, 0x3305)  # usada8 r3, r10, r5, r3
    data(2, 0xFB7B, 0x4405)  # usada8 r4, r11, r5, r4
    data(2, 0xF086, 0x3680)  # eor r6, r6, #0x80808080
    data(2, 0xF087, 0x3780)  # eor r7, r7, #0x80808080
    data(2, 0xF088, 0x3880)  # eor r8, r8, #0x80808080
    data(2, 0xF089, 0x3980)  # eor r9, r9, #0x80808080
    data(2, 0xF08A, 0x3A80)  # eor r10, r10, #0x80808080
    data(2, 0xF08B, 0x3B80)  # eor r11, r11, #0x80808080
    data(2, 0xFA2F, 0xFC86)  # sxtb16 r12, r6: row 0, a channel at a time
    data(2, 0xFA4F, 0xFE96)  # sxtb.w lr, r6, ror #8
    data(2, 0xE9C1, 0xCE00)  # strd r12, lr, [r1]
    data(2, 0xFA2F, 0xFC87)  # sxtb16 r12, r7
    data(2, 0xFA4F, 0xFE97)  # sxtb.w lr, r7, ror #8
    data(2, 0xE9C1, 0xCE02)  # strd r12, lr, [r1, #8]
    data(2, 0xF8DD, 0xC000)  # ldr.w r12, [sp, #0]
    data(2, 0xF8DC, 0xC018)  # ldr.w r12, [r12, #24]
    data(2, 0xF1BC, 0x0F02)  # cmp.w r12, #2
    blt(TD)
    data(2, 0xEB01, 0x0102)  # add.w r1, r1, r2: flags kept
    data(2, 0xEAC8, 0x0C06)  # pkhbt r12, r8, r6: row 1
    data(2, 0xFA2F, 0xFCBC)  # sxtb16 r12, r12, ror #24
    data(2, 0xFA4F, 0xFE88)  # sxtb.w lr, r8
    data(2, 0xE9C1, 0xCE00)  # strd r12, lr, [r1]
    data(2, 0xEAC9, 0x0C07)  # pkhbt r12, r9, r7
    data(2, 0xFA2F, 0xFCBC)  # sxtb16 r12, r12, ror #24
    data(2, 0xFA4F, 0xFE89)  # sxtb.w lr, r9
    data(2, 0xE9C1, 0xCE02)  # strd r12, lr, [r1, #8]
    beq(TD)
    data(2, 0xEB01, 0x0102)  # add.w r1, r1, r2
    data(2, 0xEACA, 0x0C08)  # pkhbt r12, r10, r8: row 2
    data(2, 0xFA2F, 0xFCAC)  # sxtb16 r12, r12, ror #16
    data(2, 0xFA4F, 0xFEB8)  # sxtb.w lr, r8, ror #24
    data(2, 0xE9C1, 0xCE00)  # strd r12, lr, [r1]
    data(2, 0xEACB, 0x0C09)  # pkhbt r12, r11, r9
    data(2, 0xFA2F, 0xFCAC)  # sxtb16 r12, r12, ror #16
    data(2, 0xFA4F, 0xFEB9)  # sxtb.w lr, r9, ror #24
    data(2, 0xE9C1, 0xCE02)  # strd r12, lr, [r1, #8]
    label(TD)
    data(2, 0x9904)  # ldr r1, [sp, #16]
    data(2, 0x9E00)  # ldr r6, [sp, #0]
    b(SUMS)
    label(ODD)
    data(2, 0x9E00)  # ldr r6, [sp, #0]
    ldr(r3, [r6, 0])
    mov(r7, 1)
    and_(r3, r7)
    beq(END)
    ldr(r3, [r6, 48])  # a last odd channel, its bytes in order: -1536 * groups
    ldr(r4, [r6, 40])  # 12 * groups
    add(r4, r4, r0)
    cmp(r0, r4)
    bge(OTAIL)
    label(OL)
    data(2, 0xE8B0, 0x01C0)  # ldm.w r0!, {r6, r7, r8}: (A, B, C): 4 rows
    data(2, 0xFB76, 0x3305)  # usada8 r3, r6, r5, r3
    data(2, 0xFB77, 0x3305)  # usada8 r3, r7, r5, r3
    data(2, 0xFB78, 0x3305)  # usada8 r3, r8, r5, r3
    data(2, 0xF086, 0x3680)  # eor r6, r6, #0x80808080
    data(2, 0xF087, 0x3780)  # eor r7, r7, #0x80808080
    data(2, 0xF088, 0x3880)  # eor r8, r8, #0x80808080
    data(2, 0xFA2F, 0xFA86)  # sxtb16 r10, r6: row 0
    data(2, 0xFA4F, 0xFB96)  # sxtb.w r11, r6, ror #8
    data(2, 0xE9C1, 0xAB00)  # strd r10, r11, [r1]
    add(r1, r1, r2)
    data(2, 0xEAC7, 0x0A06)  # pkhbt r10, r7, r6: row 1
    data(2, 0xFA2F, 0xFABA)  # sxtb16 r10, r10, ror #24
    data(2, 0xFA4F, 0xFB87)  # sxtb.w r11, r7
    data(2, 0xE9C1, 0xAB00)  # strd r10, r11, [r1]
    add(r1, r1, r2)
    data(2, 0xEAC8, 0x0A07)  # pkhbt r10, r8, r7: row 2
    data(2, 0xFA2F, 0xFAAA)  # sxtb16 r10, r10, ror #16
    data(2, 0xFA4F, 0xFBB7)  # sxtb.w r11, r7, ror #24
    data(2, 0xE9C1, 0xAB00)  # strd r10, r11, [r1]
    add(r1, r1, r2)
    data(2, 0xFA2F, 0xFA98)  # sxtb16 r10, r8, ror #8: row 3
    data(2, 0xFA4F, 0xFBA8)  # sxtb.w r11, r8, ror #16
    data(2, 0xE9C1, 0xAB00)  # strd r10, r11, [r1]
    add(r1, r1, r2)
    cmp(r0, r4)
    blt(OL)
    label(OTAIL)
    data(2, 0x9E00)  # ldr r6, [sp, #0]
    mov(r4, r3)
    ldr(r3, [r6, 24])
    cmp(r3, 0)
    beq(OSUM)
    label(ROWS)
    ldrb(r5, [r0, 0])  # the rows after the whole groups, a row at a time
    ldrb(r6, [r0, 1])
    ldrb(r7, [r0, 2])
    add(r0, 3)
    sub(r5, 128)
    sub(r6, 128)
    sub(r7, 128)
    add(r4, r4, r5)
    add(r4, r4, r6)
    add(r4, r4, r7)
    data(2, 0xEAC5, 0x4C07)  # pkhbt r12, r5, r7, lsl #16: (w0, w2)
    data(2, 0xE9C1, 0xC600)  # strd r12, r6, [r1]: (w0, w2), w1
    add(r1, r1, r2)
    sub(r3, 1)
    bgt(ROWS)
    label(OSUM)
    data(2, 0x9F01)  # ldr r7, [sp, #4]
    lsl(r4, r4, 7)
    str(r4, [r7, 0])
    label(END)
    data(2, 0xB006)  # add sp, #24
    data(2, 0xE8BD, 0x0F00)  # pop.w {r8, r9, r10, r11}
    mov(r0, 0)

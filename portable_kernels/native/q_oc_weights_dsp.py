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
(load time). Returns 0; writes only out; does not allocate.

A channel pair's 4 kernel rows are 3 words of each channel (one LDM of 4 words, one of 2):
EOR 0x80808080 turns w + 128 into w, SXTB16 / SXTB (rotated) give a row's (w0, w2) lanes and
its w1, PKHBT joins the two words a row straddles, USADA8 adds the bytes for the sums, and one
STM writes a row of both channels: 45 instructions per 8 (row, channel). The rows after the
whole groups of 4 and a last odd channel go a row at a time (15 instructions per row).
Measured on the cortex-m7 board (QEMU -icount, benchmarks/bench_oc_weights.py): opg 8, cpg
16, kh 3: 2,509 instructions (6.5 per (row, channel)); opg 16, cpg 8, kh 3: 2,478 (6.5).
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

# Thumb-2 dists (as native/q_dot_dsp.py: whether the CPU has the DSP extension is read on the device)
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")


def control(opg, cpg, kh, kp):
    """expand's control words (load time): opg, rows R = cpg * kh, kp, channel pairs,
    24 * (R // 4), 8 * opg, R % 4, -1536 * (R // 4), 2 * kp."""
    rows = cpg * kh
    groups = rows >> 2
    return array("i", [opg, rows, kp, opg >> 1, 24 * groups, 8 * opg, rows & 3, -1536 * groups, 2 * kp])


@micropython.asm_thumb
def expand(r0, r1, r2):
    # r0 the packed weights, r1 out, r2 ctl (control()). Pair loop: r0 the pair's words,
    # r1 its row, r2 8 * opg, r3 r4 the two sums, r5 0, r6-r9 the words, r10-r12 lr a row
    data(2, 0xE92D, 0x0F00)  # push {r8, r9, r10, r11}
    data(2, 0xB08C)  # sub sp, #48: [sp]: ctl, p, sums, pairs left, end, 3 tail words, q, s1, tail p, tail q
    data(2, 0x9200)  # str r2, [sp, #0]
    data(2, 0x9001)  # str r0, [sp, #4]: p: this pair's weights
    data(2, 0x9102)  # str r1, [sp, #8]: this pair's sums
    ldr(r3, [r2, 0])
    lsl(r3, r3, 2)
    add(r3, r3, r1)
    data(2, 0x9308)  # str r3, [sp, #32]: q: row 0 of this pair's first channel
    ldr(r3, [r2, 12])  # channel pairs
    cmp(r3, 0)
    bne(PAIRS)
    b(ODD)
    label(PAIRS)
    data(2, 0x9303)  # str r3, [sp, #12]: pairs left
    label(PAIR)
    data(2, 0x9A00)  # ldr r2, [sp, #0]
    data(2, 0x9801)  # ldr r0, [sp, #4]
    data(2, 0x9908)  # ldr r1, [sp, #32]
    ldr(r6, [r2, 16])  # 24 * groups
    add(r6, r6, r0)
    data(2, 0x9604)  # str r6, [sp, #16]: past the pair's whole groups of 4 rows
    ldr(r3, [r2, 28])  # -128 * 12 * groups: the sums of w + 128 less 128 per byte
    mov(r4, r3)
    ldr(r2, [r2, 20])  # S = 8 * opg: one row further
    mov(r5, 0)
    cmp(r0, r6)
    bge(PTAIL)
    label(GL)
    data(2, 0xE8B0, 0x03C0)  # ldm.w r0!, {r6, r7, r8, r9}: (A0, A1, B0, B1): words 0, 1 of each channel (w + 128)
    data(2, 0xFB76, 0x3305)  # usada8 r3, r6, r5, r3: s0 += bytes of A0
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
    data(2, 0xF8DD, 0xA010)  # ldr.w r10, [sp, #16]
    data(2, 0x4550)  # cmp r0, r10
    blt(GL)
    label(PTAIL)
    data(2, 0x9409)  # str r4, [sp, #36]
    data(2, 0x900A)  # str r0, [sp, #40]
    data(2, 0x910B)  # str r1, [sp, #44]
    mov(r4, r3)
    bl(TAIL)  # the first channel's last rows
    data(2, 0x9D02)  # ldr r5, [sp, #8]
    lsl(r4, r4, 7)
    str(r4, [r5, 0])
    data(2, 0x980A)  # ldr r0, [sp, #40]
    add(r0, 4)
    data(2, 0x990B)  # ldr r1, [sp, #44]
    add(r1, 8)
    data(2, 0x9C09)  # ldr r4, [sp, #36]
    bl(TAIL)  # the second's
    data(2, 0x9D02)  # ldr r5, [sp, #8]
    lsl(r4, r4, 7)
    str(r4, [r5, 4])
    add(r5, 8)
    data(2, 0x9502)  # str r5, [sp, #8]
    data(2, 0x9A00)  # ldr r2, [sp, #0]
    ldr(r3, [r2, 32])  # 2 * kp: the next pair
    data(2, 0x9801)  # ldr r0, [sp, #4]
    add(r0, r0, r3)
    data(2, 0x9001)  # str r0, [sp, #4]
    data(2, 0x9908)  # ldr r1, [sp, #32]
    add(r1, 16)
    data(2, 0x9108)  # str r1, [sp, #32]
    data(2, 0x9B03)  # ldr r3, [sp, #12]
    sub(r3, 1)
    data(2, 0x9303)  # str r3, [sp, #12]
    ble(ODD)
    b(PAIR)
    label(ODD)
    data(2, 0x9A00)  # ldr r2, [sp, #0]
    ldr(r3, [r2, 0])
    mov(r5, 1)
    and_(r3, r5)
    beq(END)
    data(2, 0x9801)  # ldr r0, [sp, #4]: the last channel, plain: wt + (opg - 1) * kp
    data(2, 0x9908)  # ldr r1, [sp, #32]
    ldr(r3, [r2, 4])  # all its rows
    ldr(r2, [r2, 20])
    mov(r4, 0)
    bl(ROWS)
    data(2, 0x9D02)  # ldr r5, [sp, #8]
    lsl(r4, r4, 7)
    str(r4, [r5, 0])
    label(END)
    data(2, 0xB00C)  # add sp, #48
    data(2, 0xE8BD, 0x0F00)  # pop.w {r8, r9, r10, r11}
    mov(r0, 0)
    b(DONE)
    label(TAIL)
    data(2, 0x9E00)  # ldr r6, [sp, #0]
    ldr(r3, [r6, 24])  # rem: rows after the whole groups
    cmp(r3, 0)
    beq(RET)
    data(2, 0xAE05)  # add r6, sp, #20
    mov(r7, r3)
    label(TC)
    ldr(r5, [r0, 0])  # its rem words, 8 bytes apart, copied together
    add(r0, 8)
    str(r5, [r6, 0])
    add(r6, 4)
    sub(r7, 1)
    bgt(TC)
    data(2, 0xA805)  # add r0, sp, #20
    label(ROWS)
    ldrb(r5, [r0, 0])
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
    label(RET)
    bx(lr)
    label(DONE)

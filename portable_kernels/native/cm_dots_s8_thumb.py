"""Arm Thumb inner loop of the cortex_m:: int8 convolutions on channels-last
data (native/cm_conv_nhwc_viper.py): imported only where the port has
@micropython.asm_thumb (emitters.HAS_THUMB).

dots(x, w, acc, ctl), int32 ctl = [x byte offset, w byte offset, n, rows,
w row stride in bytes, x offset, scratch x4]:
    acc[j] += sum((x[i] + x offset) * w[j * stride + i], i < n), j < rows
x and w signed int8 read in place (ExecuTorch's plain OHWI weights, from
flash), 4 products per loop pass (SXTB emitted with data()). n >= 1; sums
below 2**31.

macs(x, w, acc, ctl): the depthwise form, one product per channel (below).
requant(acc, out, rq, ctl): one pixel's accumulators requantized with SMULL
(below). All write only their outputs and ctl's scratch and return 0 (a
small int: nothing allocates).
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
import micropython


@micropython.asm_thumb
def dots(r0, r1, r2, r3):
    ldr(r4, [r3, 0])
    add(r0, r0, r4)
    str(r0, [r3, 32])  # x vector
    ldr(r4, [r3, 4])
    add(r1, r1, r4)
    str(r1, [r3, 28])  # current weight row
    str(r2, [r3, 36])  # current accumulator
    ldr(r4, [r3, 12])
    str(r4, [r3, 24])  # rows left
    ldr(r5, [r3, 20])  # x offset
    label(ROW)
    ldr(r6, [r3, 32])
    ldr(r1, [r3, 28])
    mov(r2, 0)
    ldr(r4, [r3, 8])
    lsr(r4, r4, 2)
    lsl(r4, r4, 2)
    add(r4, r4, r6)  # end of the 4-wide part
    cmp(r6, r4)
    bge(REST)
    label(QUAD)
    ldrb(r0, [r6, 0])
    data(2, 0xB240)  # sxtb r0, r0
    add(r0, r0, r5)
    ldrb(r7, [r1, 0])
    data(2, 0xB27F)  # sxtb r7, r7
    mul(r0, r7)
    add(r2, r2, r0)
    ldrb(r0, [r6, 1])
    data(2, 0xB240)
    add(r0, r0, r5)
    ldrb(r7, [r1, 1])
    data(2, 0xB27F)
    mul(r0, r7)
    add(r2, r2, r0)
    ldrb(r0, [r6, 2])
    data(2, 0xB240)
    add(r0, r0, r5)
    ldrb(r7, [r1, 2])
    data(2, 0xB27F)
    mul(r0, r7)
    add(r2, r2, r0)
    ldrb(r0, [r6, 3])
    data(2, 0xB240)
    add(r0, r0, r5)
    ldrb(r7, [r1, 3])
    data(2, 0xB27F)
    mul(r0, r7)
    add(r2, r2, r0)
    add(r6, 4)
    add(r1, 4)
    cmp(r6, r4)
    blt(QUAD)
    label(REST)
    ldr(r4, [r3, 32])
    ldr(r7, [r3, 8])
    add(r4, r4, r7)  # end of the vector
    cmp(r6, r4)
    bge(DONE)
    label(ONE)
    ldrb(r0, [r6, 0])
    data(2, 0xB240)
    add(r0, r0, r5)
    ldrb(r7, [r1, 0])
    data(2, 0xB27F)
    mul(r0, r7)
    add(r2, r2, r0)
    add(r6, 1)
    add(r1, 1)
    cmp(r6, r4)
    blt(ONE)
    label(DONE)
    ldr(r0, [r3, 36])
    ldr(r7, [r0, 0])
    add(r7, r7, r2)
    str(r7, [r0, 0])
    add(r0, 4)
    str(r0, [r3, 36])
    ldr(r1, [r3, 28])
    ldr(r7, [r3, 16])
    add(r1, r1, r7)
    str(r1, [r3, 28])
    ldr(r7, [r3, 24])
    sub(r7, 1)
    str(r7, [r3, 24])
    bgt(ROW)
    mov(r0, 0)


@micropython.asm_thumb
def macs(r0, r1, r2, r3):
    # int32 ctl = [x byte offset, w byte offset, rows, x step (0 or 1), x offset, scratch]:
    # acc[j] += (x[j * step] + x offset) * w[j], j < rows (depthwise taps, channels-last)
    ldr(r4, [r3, 0])
    add(r6, r0, r4)  # x
    ldr(r4, [r3, 4])
    add(r1, r1, r4)  # w
    ldr(r4, [r3, 8])
    add(r4, r4, r1)
    str(r4, [r3, 20])  # end of the weights
    ldr(r4, [r3, 12])  # x step
    ldr(r5, [r3, 16])  # x offset
    label(LOOP)
    ldrb(r0, [r6, 0])
    data(2, 0xB240)  # sxtb r0, r0
    add(r0, r0, r5)
    ldrb(r7, [r1, 0])
    data(2, 0xB27F)  # sxtb r7, r7
    mul(r0, r7)
    ldr(r7, [r2, 0])
    add(r7, r7, r0)
    str(r7, [r2, 0])
    add(r6, r6, r4)
    add(r1, 1)
    add(r2, 4)
    ldr(r7, [r3, 20])
    cmp(r1, r7)
    blt(LOOP)
    mov(r0, 0)


@micropython.asm_thumb
def requant(r0, r1, r2, r3):
    # acc int32 [n] -> out bytes, CMSIS-NN's arm_nn_requantize with SMULL (data()):
    # v = acc << left; v = (v * M + 2**30) >> 31 (64-bit); rounding divide by 2**right
    # (halves away from zero); + output offset, clamped. rq = int32 [n, 6] (cortex_m/cmsis.py);
    # int32 ctl = [n, out byte offset, out channel stride in bytes, output offset, lo, hi,
    # scratch x3]. The caller guarantees |acc << left| < 2**31 and right <= 30.
    ldr(r4, [r3, 4])
    add(r1, r1, r4)
    str(r1, [r3, 32])  # current output byte
    ldr(r4, [r3, 0])
    str(r4, [r3, 24])  # outputs left
    label(LOOP)
    ldr(r5, [r0, 0])
    ldr(r6, [r2, 12])
    lsl(r5, r6)  # << left
    ldr(r6, [r2, 20])  # M
    data(2, 0xFB85, 0x4706)  # smull r4, r7, r5, r6
    mov(r6, 1)
    lsl(r6, r6, 30)
    add(r4, r4, r6)
    mov(r6, 0)
    adc(r7, r6)
    lsl(r7, r7, 1)
    lsr(r4, r4, 31)
    orr(r7, r4)  # doubling high multiply, rounded
    ldr(r6, [r2, 16])  # right
    cmp(r6, 0)
    beq(NOSHIFT)
    mov(r5, 1)
    lsl(r5, r6)
    sub(r5, 1)  # mask
    mov(r4, r7)
    and_(r4, r5)  # remainder
    asr(r7, r6)
    lsr(r5, r5, 1)  # threshold
    cmp(r7, 0)
    bge(POS)
    add(r5, 1)
    label(POS)
    cmp(r4, r5)
    ble(NOSHIFT)
    add(r7, 1)
    label(NOSHIFT)
    ldr(r6, [r3, 12])
    add(r7, r7, r6)
    ldr(r6, [r3, 16])
    cmp(r7, r6)
    bge(OKLO)
    mov(r7, r6)
    label(OKLO)
    ldr(r6, [r3, 20])
    cmp(r7, r6)
    ble(OKHI)
    mov(r7, r6)
    label(OKHI)
    ldr(r6, [r3, 32])
    strb(r7, [r6, 0])
    ldr(r5, [r3, 8])
    add(r6, r6, r5)
    str(r6, [r3, 32])
    add(r0, 4)
    add(r2, 24)
    ldr(r6, [r3, 24])
    sub(r6, 1)
    str(r6, [r3, 24])
    bgt(LOOP)
    mov(r0, 0)

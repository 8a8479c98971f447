"""Arm DSP-extension inner loop of the int8 3x3 depthwise convolution
(native/q_conv_dw3x3_thumb.py): imported only where the port has the DSP
extension (emitters.DSP: Cortex-M4 / M7), in place of q_dw_thumb.dw3x3.

dw3x3(plane, taps, d, ctl) has q_dw_thumb.dw3x3's arguments, ctl and
results, with the channel's taps also packed as signed halfword pairs in
taps[9..14]: (w0, w2), (w1, 0), (w3, w5), (w4, 0), (w6, w8), (w7, 0). Each
window row is one (unaligned) word load of 4 padded-plane bytes, split by
UXTB16 into lanes (b0, b2) and (b1, b3) and multiplied by two tap words
with SMUAD / SMLAD (the fourth byte meets a zero tap): 25 instructions per
output pixel instead of ~50. Bytes unsigned (x + 128), taps signed: the
same integer sums. Writes only d and ctl's scratch; returns 0.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
import micropython

# Thumb-2 dists (host_tools/deploy/build_targets.march_list): whether the CPU has the DSP
# extension is read on the device (emitters.DSP; e.g. a Cortex-M33 under an armv7m dist)
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")


@micropython.asm_thumb
def dw3x3(r0, r1, r2, r3):
    # r8-r12, lr the packed taps; r1 the padded row width; r0 the window, r5 its next rows
    data(2, 0xE92D, 0x0F00)  # push {r8-r11}
    ldr(r4, [r3, 20])
    add(r1, r1, r4)
    ldr(r4, [r1, 36])
    mov(r8, r4)
    ldr(r4, [r1, 40])
    mov(r9, r4)
    ldr(r4, [r1, 44])
    mov(r10, r4)
    ldr(r4, [r1, 48])
    mov(r11, r4)
    ldr(r4, [r1, 52])
    mov(r12, r4)
    ldr(r4, [r1, 56])
    mov(lr, r4)
    ldr(r1, [r3, 0])
    ldr(r4, [r3, 36])
    add(r0, r0, r4)  # the first output row's windows
    str(r0, [r3, 32])
    ldr(r4, [r3, 12])
    str(r4, [r3, 28])  # rows left
    label(ROW)
    ldr(r0, [r3, 32])
    ldr(r4, [r3, 8])
    str(r4, [r3, 24])  # pixels left in the row
    label(PIX)
    ldr(r6, [r0, 0])
    data(2, 0xFA3F, 0xF786)  # uxtb16 r7, r6: bytes 0, 2
    data(2, 0xFA3F, 0xF696)  # uxtb16 r6, r6, ror #8: bytes 1, 3
    data(2, 0xFB27, 0xF408)  # smuad r4, r7, r8
    data(2, 0xFB26, 0x4409)  # smlad r4, r6, r9, r4
    add(r5, r0, r1)  # second window row
    ldr(r6, [r5, 0])
    data(2, 0xFA3F, 0xF786)  # uxtb16 r7, r6
    data(2, 0xFA3F, 0xF696)  # uxtb16 r6, r6, ror #8
    data(2, 0xFB27, 0x440A)  # smlad r4, r7, r10, r4
    data(2, 0xFB26, 0x440B)  # smlad r4, r6, r11, r4
    add(r5, r5, r1)  # third window row
    ldr(r6, [r5, 0])
    data(2, 0xFA3F, 0xF786)  # uxtb16 r7, r6
    data(2, 0xFA3F, 0xF696)  # uxtb16 r6, r6, ror #8
    data(2, 0xFB27, 0x440C)  # smlad r4, r7, r12, r4
    data(2, 0xFB26, 0x440E)  # smlad r4, r6, lr, r4
    str(r4, [r2, 0])
    add(r2, 4)
    ldr(r6, [r3, 4])
    add(r0, r0, r6)  # next window: stride x
    ldr(r6, [r3, 24])
    sub(r6, 1)
    str(r6, [r3, 24])
    bgt(PIX)
    ldr(r0, [r3, 32])
    ldr(r6, [r3, 16])
    add(r0, r0, r6)  # next output row: stride y rows down
    str(r0, [r3, 32])
    ldr(r6, [r3, 28])
    sub(r6, 1)
    str(r6, [r3, 28])
    bgt(ROW)
    data(2, 0xE8BD, 0x0F00)  # pop {r8-r11}
    mov(r0, 0)

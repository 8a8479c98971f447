"""Thumb-2 step of mpy_et_quant::quantize_per_tensor
(quantized/op_quantize_per_tensor.py) for armv7-m and up (emitters.THUMB2):
q_quantize_thumb's search with the pointers and constants in registers, a
threshold's two 16-bit halves joined by one shifted OR (LDRD, ORR.W) and
each search step without a branch (an IT block): ~30 instructions per value
against ~45. Instructions the inline assembler has no mnemonic for are
emitted with data(). Bit-identical with the reference (the same integers);
both tables read where they lie. Does not allocate.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.native.thumb_steps import at

# Thumb-2 dists only (host_tools/deploy/build_targets.march_list)
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")


def prepare(x, thresholds, buckets, levels, qmin, out):
    """(step, ctx), or None where the thresholds are not word-aligned (LDRD)."""
    th = at(thresholds)
    if th & 3:
        return None
    o = at(out)
    ctl = array("i", [at(x), o, o + out.numel, th, at(buckets), qmin, -0x80000000])
    return _quantize, (ctl, x.buf, out.buf, thresholds.buf, buckets.buf)


@micropython.asm_thumb
def _quantize(r0):
    # r0: the context's items; [0] the control array: [0] x [4] out [8] out's end
    # [12] thresholds [16] buckets [20] qmin [24] 0x80000000
    ldr(r3, [r0, 0])
    ldr(r3, [r3, 12])
    data(2, 0xE92D, 0x0F00)  # push.w {r8-r11}
    ldr(r4, [r3, 16])
    data(2, 0x46A0)  # mov r8, r4: buckets
    ldr(r4, [r3, 24])
    data(2, 0x46A1)  # mov r9, r4: 0x80000000
    ldr(r4, [r3, 20])
    data(2, 0x46A2)  # mov r10, r4: qmin
    ldr(r0, [r3, 0])
    ldr(r1, [r3, 4])
    ldr(r2, [r3, 8])
    ldr(r3, [r3, 12])
    cmp(r1, r2)
    bge(DONE)
    label(EL)
    data(2, 0xF850, 0x4B04)  # ldr r4, [r0], #4
    asr(r7, r4, 31)
    data(2, 0xEA47, 0x0709)  # orr.w r7, r7, r9
    eor(r4, r7)  # the key
    lsr(r7, r4, 20)
    data(2, 0x4447)  # add r7, r8: the key's bucket
    ldrb(r5, [r7, 0])  # a
    ldrb(r6, [r7, 1])  # b
    b(SRCH)
    label(ITER)
    add(r7, r5, r6)
    lsr(r7, r7, 1)  # mid
    data(2, 0xEB03, 0x0BC7)  # add.w r11, r3, r7, lsl #3
    data(2, 0xE9DB, 0xBC00)  # ldrd r11, r12, [r11]: high, low half
    data(2, 0xEA4C, 0x4B0B)  # orr.w r11, r12, r11, lsl #16: thresholds[mid]
    data(2, 0x45A3)  # cmp r11, r4
    data(2, 0xBF94)  # ite ls
    data(2, 0x1C7D)  # addls r5, r7, #1: thresholds[mid] <= key
    data(2, 0x463E)  # movhi r6, r7
    label(SRCH)
    cmp(r5, r6)
    blt(ITER)
    data(2, 0x4455)  # add r5, r10
    data(2, 0xF801, 0x5B01)  # strb r5, [r1], #1
    cmp(r1, r2)
    blt(EL)
    label(DONE)
    data(2, 0xE8BD, 0x0F00)  # pop.w {r8-r11}
    mov(r0, 0)


noalloc.mark(_quantize)

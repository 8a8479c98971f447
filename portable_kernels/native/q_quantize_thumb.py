"""Arm Thumb step of mpy_et_quant::quantize_per_tensor
(quantized/op_quantize_per_tensor.py): q_quantize_viper's integer search in
assembler, the step itself an assembler function (native/thumb_steps.py).
A float32's bits b form the monotone unsigned key b ^ (sign ? 0xFFFFFFFF :
0x80000000) (q_quantize_viper's two 16-bit halves, joined); the bucket of its
top 12 bits bounds the thresholds (int32 (high, low) pairs, joined as
high << 16 | low) to search, and the count of those at or below the key is
the level (~65 instructions per value on a Cortex-M3 against ~225 in viper).
Imported only where the port has @micropython.asm_thumb (emitters.HAS_THUMB);
Thumb-1 instructions only. Runs in place from ROMFS. Does not allocate.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.native.thumb_steps import at


def prepare(x, thresholds, buckets, levels, qmin, out):
    """(step, ctx): both tables read where they lie."""
    o = at(out)
    ctl = array("i", [at(x), o, o + out.numel, at(thresholds), at(buckets), qmin, -0x80000000, 0, 0])
    return _quantize, (ctl, x.buf, out.buf, thresholds.buf, buckets.buf)


@micropython.asm_thumb
def _quantize(r0):
    # r0: the context's items; [0] the control array: [0] x [4] out [8] out's end
    # [12] thresholds [16] buckets [20] qmin [24] 0x80000000; scratch: [28] x [32] out
    ldr(r3, [r0, 0])
    ldr(r3, [r3, 12])
    ldr(r0, [r3, 12])
    ldr(r1, [r3, 0])
    str(r1, [r3, 28])
    ldr(r2, [r3, 4])
    str(r2, [r3, 32])
    ldr(r4, [r3, 8])
    cmp(r2, r4)
    bge(DONE)
    label(EL)
    ldr(r1, [r3, 28])
    ldr(r4, [r1, 0])
    add(r1, 4)
    str(r1, [r3, 28])
    asr(r5, r4, 31)
    ldr(r6, [r3, 24])
    orr(r5, r6)
    eor(r4, r5)  # the key
    lsr(r5, r4, 20)
    ldr(r6, [r3, 16])
    add(r5, r5, r6)
    ldrb(r6, [r5, 0])  # a
    ldrb(r7, [r5, 1])  # b
    b(SRCH)
    label(ITER)
    add(r5, r6, r7)
    lsr(r5, r5, 1)  # mid
    lsl(r1, r5, 3)
    add(r1, r1, r0)
    ldr(r2, [r1, 0])
    ldr(r1, [r1, 4])
    lsl(r2, r2, 16)
    orr(r2, r1)  # thresholds[mid]
    cmp(r2, r4)
    bhi(GT)
    add(r6, r5, 1)  # thresholds[mid] <= key
    b(SRCH)
    label(GT)
    mov(r7, r5)
    label(SRCH)
    cmp(r6, r7)
    blt(ITER)
    ldr(r5, [r3, 20])
    add(r6, r6, r5)
    ldr(r2, [r3, 32])
    strb(r6, [r2, 0])
    add(r2, 1)
    str(r2, [r3, 32])
    ldr(r4, [r3, 8])
    cmp(r2, r4)
    blt(EL)
    label(DONE)
    mov(r0, 0)


noalloc.mark(_quantize)

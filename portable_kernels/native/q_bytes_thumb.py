"""Arm Thumb steps that move int8 bytes: mpy_et_quant::max_pool2d without
padding (quantized/op_max_pool2d.py) and dequantize_per_tensor's table
lookup (quantized/op_dequantize_per_tensor.py), each step itself an
assembler function (native/thumb_steps.py). One module for both: native
code is copied to RAM on import, and a module costs RAM of its own.

Max pooling: a window of two adjacent bytes per row (kernel (1, 2) or
(2, 2), stride 2 along the row: max_pool1d's k=2 and the common 2x2) walks
the row with two byte indices (~5 instructions per input byte on a
Cortex-M3, ~160 in viper); any other window reads its taps' offsets from
the control block. Values load sign-extended (ldrsb), so the plain signed
compare is the int8 order: bit-identical with the reference.

Dequantize: out[i] = table[x[i]], the float32 bits of the host's 256-entry
table copied as a word (ldrsb, ldr, str: ~8 instructions per value against
~100 for the viper byte copy).

Imported only where the port has @micropython.asm_thumb (emitters.HAS_THUMB);
Thumb-1 instructions only (ldrsb's register form as data()). Does not allocate.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.native.thumb_steps import at


def prepare_max_pool(x, out, planes, h, w, kh, kw, sh, sw, dh, dw, oh, ow):
    """(step, ctx) of an unpadded window (the caller keeps padded ones on
    the viper step)."""
    head = [at(x), at(out), planes, oh, ow, sw, sh * w, h * w]
    if kw == 2 and dw == 1 and sw == 2 and kh <= 2:
        ctl = head + [dh * w, 0, 0, 0, 0, kh]
    else:
        taps = [ky * dh * w + kx * dw for ky in range(kh) for kx in range(kw)]
        ctl = head + [4 * len(taps), 0, 0, 0, 0, 0] + taps
    return _max_pool, (array("i", ctl), x.buf, out.buf)


@micropython.asm_thumb
def _max_pool(r0):
    # r0: the context's items; [0] the control array: [0] x [4] out [8] planes [12] oh
    # [16] ow [20] sw [24] sh * w [28] h * w [32] the second row's offset (pairs) or
    # 4 * taps; scratch: [36] row [40] rows left [44] planes left [48] plane; [52] rows
    # of a window of pairs (1 or 2), 0: taps, whose offsets from the window's first
    # byte follow from [56]
    ldr(r0, [r0, 0])
    ldr(r0, [r0, 12])
    ldr(r1, [r0, 4])
    ldr(r2, [r0, 0])
    str(r2, [r0, 48])
    ldr(r2, [r0, 8])
    str(r2, [r0, 44])
    label(PLANE)
    ldr(r2, [r0, 48])
    str(r2, [r0, 36])
    ldr(r2, [r0, 12])
    str(r2, [r0, 40])
    label(ROW)
    ldr(r2, [r0, 36])  # the window's first byte
    ldr(r7, [r0, 16])
    ldr(r4, [r0, 52])
    cmp(r4, 0)
    beq(TAPS)
    add(r7, r7, r1)  # the output row's end
    mov(r5, 0)
    mov(r6, 1)
    push({r0})
    cmp(r4, 1)
    beq(ONE)
    ldr(r4, [r0, 32])
    add(r4, r4, r2)  # the second row
    label(TWO)
    data(2, 0x5753)  # ldrsb r3, [r2, r5]
    data(2, 0x5790)  # ldrsb r0, [r2, r6]
    cmp(r3, r0)
    bge(TWOA)
    mov(r3, r0)
    label(TWOA)
    data(2, 0x5760)  # ldrsb r0, [r4, r5]
    cmp(r3, r0)
    bge(TWOB)
    mov(r3, r0)
    label(TWOB)
    data(2, 0x57A0)  # ldrsb r0, [r4, r6]
    cmp(r3, r0)
    bge(TWOC)
    mov(r3, r0)
    label(TWOC)
    strb(r3, [r1, 0])
    add(r1, 1)
    add(r5, 2)
    add(r6, 2)
    cmp(r1, r7)
    blt(TWO)
    pop({r0})
    b(NEXT)
    label(ONE)
    data(2, 0x5753)  # ldrsb r3, [r2, r5]
    data(2, 0x5790)  # ldrsb r0, [r2, r6]
    cmp(r3, r0)
    bge(ONEA)
    mov(r3, r0)
    label(ONEA)
    strb(r3, [r1, 0])
    add(r1, 1)
    add(r5, 2)
    add(r6, 2)
    cmp(r1, r7)
    blt(ONE)
    pop({r0})
    b(NEXT)
    label(TAPS)  # r7: outputs left in the row
    ldr(r4, [r0, 32])
    add(r4, r4, r0)  # tap t's offset at [r4 + 52], t = taps .. 1
    ldr(r6, [r4, 52])
    data(2, 0x5793)  # ldrsb r3, [r2, r6]
    b(TAPN)
    label(TAP)
    ldr(r6, [r4, 52])
    data(2, 0x5795)  # ldrsb r5, [r2, r6]
    cmp(r3, r5)
    bge(TAPN)
    mov(r3, r5)
    label(TAPN)
    sub(r4, 4)
    cmp(r4, r0)
    bhi(TAP)
    strb(r3, [r1, 0])
    add(r1, 1)
    ldr(r6, [r0, 20])
    add(r2, r2, r6)
    sub(r7, 1)
    bgt(TAPS)
    label(NEXT)
    ldr(r2, [r0, 36])
    ldr(r3, [r0, 24])
    add(r2, r2, r3)
    str(r2, [r0, 36])
    ldr(r2, [r0, 40])
    sub(r2, 1)
    str(r2, [r0, 40])
    bgt(ROW)
    ldr(r2, [r0, 48])
    ldr(r3, [r0, 28])
    add(r2, r2, r3)
    str(r2, [r0, 48])
    ldr(r2, [r0, 44])
    sub(r2, 1)
    str(r2, [r0, 44])
    bgt(PLANE)
    mov(r0, 0)


def prepare_dequantize(x, table, out):
    """(step, ctx), or None where a float word is not word-aligned (the
    caller keeps the viper step: Thumb-1 cores fault on unaligned words)."""
    t0 = at(table) + 512  # the entry of value 0; value v at t0 + 4 * v
    o = at(out)
    if (t0 | o) & 3:
        return None
    ctl = array("i", [at(x), o, o + 4 * out.numel, t0])
    return _dequantize, (ctl, x.buf, table.buf, out.buf)


@micropython.asm_thumb
def _dequantize(r0):
    # r0: the context's items; [0] the control array: [0] x [4] out [8] out's end [12] table's entry of 0
    ldr(r0, [r0, 0])
    ldr(r0, [r0, 12])
    ldr(r1, [r0, 0])
    ldr(r2, [r0, 4])
    ldr(r3, [r0, 8])
    ldr(r4, [r0, 12])
    mov(r5, 0)
    cmp(r2, r3)
    bge(DONE)
    label(EL)
    data(2, 0x574E)  # ldrsb r6, [r1, r5]
    lsl(r6, r6, 2)
    data(2, 0x59A6)  # ldr r6, [r4, r6]
    str(r6, [r2, 0])
    add(r2, 4)
    add(r5, 1)
    cmp(r2, r3)
    blt(EL)
    label(DONE)
    mov(r0, 0)


noalloc.mark(_max_pool, _dequantize)

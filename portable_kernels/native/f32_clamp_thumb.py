"""Float32 clamp / hardtanh on the bits in Arm Thumb assembler (Thumb-1
instructions: every Arm Thumb port, emitters.HAS_THUMB, the RP2040's
Cortex-M0+ included), called directly as the step (native/thumb_steps.py):
f32_clamp_viper.clamp's rule at 19 instructions per element (the viper loop
takes ~55 on a Cortex-M7; mobilenet_v2's ReLU6 layers spent 37% of its
float run there).

A float32 bit pattern b maps to the signed key (b & 0x7FFFFFFF), negated
when the sign bit is set: keys order as the values do, and -0.0 and +0.0
share key 0. NaN (a magnitude above inf's bits) passes through. The bound
keys are made at load; a missing bound gets the key no element passes.
Applied as the bytecode step does: raise to lo, then lower to hi (lo > hi
gives hi everywhere). No float object, no allocation.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.native.thumb_steps import at


def _key(b):
    m = b & 0x7FFFFFFF
    return -m if b >> 31 else m


def _signed(b):
    return b - 0x100000000 if b >> 31 else b


def prepare(x, out, lo_bits, hi_bits):
    """(step, ctx) of clamp(x) into out, both contiguous float32 of the same
    numel; lo_bits / hi_bits: a bound's float32 bits, or None."""
    lo_key = -0x80000000 if lo_bits is None else _key(lo_bits)
    hi_key = 0x7FFFFFFF if hi_bits is None else _key(hi_bits)
    lo_b = 0 if lo_bits is None else _signed(lo_bits)
    hi_b = 0 if hi_bits is None else _signed(hi_bits)
    # [0] source [4] destination [8] count [12] lo key [16] hi key [20] inf's bits << 1 [24] lo [28] hi
    ctl = array("i", [at(x), at(out), x.numel, lo_key, hi_key, -0x1000000, lo_b, hi_b])
    return _clamp, (ctl, x.buf, out.buf)


@micropython.asm_thumb
def _clamp(r0):
    ldr(r3, [r0, 0])
    ldr(r3, [r3, 12])  # the control words
    ldr(r0, [r3, 0])
    ldr(r1, [r3, 4])
    ldr(r2, [r3, 8])
    lsl(r2, r2, 2)
    add(r2, r1, r2)  # the end of the destination
    ldr(r7, [r3, 12])  # lo's key
    b(TEST)
    label(LOOP)
    ldr(r4, [r0, 0])
    add(r0, 4)
    lsl(r5, r4, 1)  # the magnitude, shifted left once
    ldr(r6, [r3, 20])
    cmp(r5, r6)
    bhi(STORE)  # NaN passes through
    lsr(r5, r5, 1)
    asr(r6, r4, 31)  # 0, or -1 when the sign is set
    eor(r5, r6)
    sub(r5, r5, r6)  # the key
    cmp(r5, r7)
    bge(HI)
    ldr(r4, [r3, 24])  # raised to lo
    mov(r5, r7)
    label(HI)
    ldr(r6, [r3, 16])
    cmp(r5, r6)
    ble(STORE)
    ldr(r4, [r3, 28])  # lowered to hi
    label(STORE)
    str(r4, [r1, 0])
    add(r1, 4)
    label(TEST)
    cmp(r1, r2)
    bcc(LOOP)
    mov(r0, 0)


noalloc.mark(_clamp)

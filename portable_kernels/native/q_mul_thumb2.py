"""Thumb-2 step of mpy_et_quant::mul (quantized/op_mul.py) for armv7-m and
up (emitters.THUMB2): q_add_thumb2's single 64-bit product on
acc = (a - za) * (b - zb), the constants in registers (~15 instructions per
element against ~45 for q_mul_thumb's Thumb-1 loop):

    out = max(lo, ssat8(high word of (acc * M' + 2**31 + zo * 2**32)))

exact where requant.single_product says so (checked at load; prepare()
returns None otherwise and the caller keeps q_mul_thumb's step). Its own
module, not q_add_thumb2's: the models with adds only do not import its
code. Instructions the inline assembler has no mnemonic for are emitted
with data(). Does not allocate.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.native.thumb_steps import at
from portable_kernels.quantized.requant import single_product

# Thumb-2 dists only (host_tools/deploy/build_targets.march_list)
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")


def prepare_mul(a, b, out, za, zb, m, s, lim, zo, lo, hi):
    """(step, ctx), or None where the single product does not hold."""
    ends = [u * v for u in (-128 - za, 127 - za) for v in (-128 - zb, 127 - zb)]
    mp = single_product(min(ends), max(ends), m, s, lim, zo, lo, hi)
    if not mp:
        return None
    o = at(out)
    ctl = array("i", [at(a), at(b), o, o + out.numel, za, zb, mp, -0x80000000, zo, lo])
    return _mul, (ctl, a.buf, b.buf, out.buf)


@micropython.asm_thumb
def _mul(r0):
    # r0: the context's items; [0] the control array: [0] a [4] b [8] out [12] out's end
    # [16] za [20] zb [24] M' [28] 2**31 (the constant's low word) [32] zo (its high word) [36] lo
    ldr(r3, [r0, 0])
    ldr(r3, [r3, 12])
    data(2, 0xE92D, 0x0F00)  # push.w {r8-r11}
    ldr(r4, [r3, 16])
    data(2, 0x46A0)  # mov r8, r4: za
    ldr(r4, [r3, 20])
    data(2, 0x46A1)  # mov r9, r4: zb
    ldr(r4, [r3, 24])
    data(2, 0x46A2)  # mov r10, r4: M'
    ldr(r4, [r3, 28])
    data(2, 0x46A3)  # mov r11, r4: the constant's low word
    ldr(r4, [r3, 32])
    data(2, 0x46A4)  # mov r12, r4: its high word
    ldr(r4, [r3, 36])
    data(2, 0x46A6)  # mov lr, r4: lo (the entry saved lr)
    ldr(r0, [r3, 0])
    ldr(r1, [r3, 4])
    ldr(r2, [r3, 8])
    ldr(r3, [r3, 12])
    label(LOOP)
    data(2, 0xF910, 0x4B01)  # ldrsb r4, [r0], #1
    data(2, 0xF911, 0x5B01)  # ldrsb r5, [r1], #1
    data(2, 0xEBA4, 0x0408)  # sub.w r4, r4, r8
    data(2, 0xEBA5, 0x0509)  # sub.w r5, r5, r9
    mul(r4, r5)
    data(2, 0x465E)  # mov r6, r11
    data(2, 0x4667)  # mov r7, r12
    data(2, 0xFBC4, 0x670A)  # smlal r6, r7, r4, r10
    data(2, 0xF307, 0x0707)  # ssat r7, #8, r7
    data(2, 0x4577)  # cmp r7, lr
    data(2, 0xBFB8)  # it lt
    data(2, 0x4677)  # movlt r7, lr
    data(2, 0xF802, 0x7B01)  # strb r7, [r2], #1
    cmp(r2, r3)
    blt(LOOP)
    data(2, 0xE8BD, 0x0F00)  # pop.w {r8-r11}
    mov(r0, 0)


noalloc.mark(_mul)

"""Thumb-2 step of mpy_et_quant::add (quantized/op_add.py) for armv7-m and
up (emitters.THUMB2): the whole requantization as one 64-bit
multiply-accumulate, the constants in registers (~15 instructions per
element against ~45 for q_add_thumb's Thumb-1 loop). Instructions the
inline assembler has no mnemonic for are emitted with data().

With acc = a * ma + b * mb (bytes signed; the zero points folded into K):

    out = max(lo, ssat8(high word of (acc * M' + K)))
    M' = M << (32 - s),  K = (-za * ma - zb * mb) * M' + 2**31 + zo * 2**32

which is the reference's clamp(zo + floor((acc' * M + 2**(s-1)) / 2**s), lo,
127) for acc' = acc - za * ma - zb * mb exactly (numerator and denominator
times 2**(32 - s); the 15-bit split of s >= 22 gives the same floor), as
long as clamping acc' at the limit L changes nothing (acc' never reaches it,
or the output at +-L saturates already: the requantization is monotone, and
64 bits hold acc' * M' unclamped), s <= 32, M' < 2**31 and the upper bound
is 127 (requant.single_product). prepare() checks these at load and returns
None otherwise (the caller keeps q_add_thumb's step).
Does not allocate.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.native.thumb_steps import at
from portable_kernels.quantized.requant import single_product

# Thumb-2 dists only (host_tools/deploy/build_targets.march_list)
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")


def _span(z, mult):
    """(min, max) of (v - z) * mult over int8 v."""
    u, v = (-128 - z) * mult, (127 - z) * mult
    return (u, v) if u < v else (v, u)


def prepare_add(a, b, out, za, ma, zb, mb, m, s, lim, zo, lo, hi):
    """(step, ctx), or None where the single product does not hold (above)."""
    (a0, a1), (b0, b1) = _span(za, ma), _span(zb, mb)
    mp = single_product(a0 + b0, a1 + b1, m, s, lim, zo, lo, hi)
    if not mp:
        return None
    k = (-za * ma - zb * mb) * mp + (1 << 31) + (zo << 32)
    klo = k & 0xFFFFFFFF
    o = at(out)
    ctl = array("i", [at(a), at(b), o, o + out.numel, ma, mb, mp, klo - (klo >> 31 << 32), k >> 32, lo])
    return _add, (ctl, a.buf, b.buf, out.buf)


@micropython.asm_thumb
def _add(r0):
    # r0: the context's items; [0] the control array: [0] a [4] b [8] out [12] out's end
    # [16] ma [20] mb [24] M' [28] K's low word [32] K's high word [36] lo
    ldr(r3, [r0, 0])
    ldr(r3, [r3, 12])
    data(2, 0xE92D, 0x0F00)  # push.w {r8-r11}
    ldr(r4, [r3, 16])
    data(2, 0x46A0)  # mov r8, r4: ma
    ldr(r4, [r3, 20])
    data(2, 0x46A1)  # mov r9, r4: mb
    ldr(r4, [r3, 24])
    data(2, 0x46A2)  # mov r10, r4: M'
    ldr(r4, [r3, 28])
    data(2, 0x46A3)  # mov r11, r4: K's low word
    ldr(r4, [r3, 32])
    data(2, 0x46A4)  # mov r12, r4: K's high word
    ldr(r4, [r3, 36])
    data(2, 0x46A6)  # mov lr, r4: lo (the entry saved lr)
    ldr(r0, [r3, 0])
    ldr(r1, [r3, 4])
    ldr(r2, [r3, 8])
    ldr(r3, [r3, 12])
    label(LOOP)
    data(2, 0xF910, 0x4B01)  # ldrsb r4, [r0], #1
    data(2, 0xF911, 0x5B01)  # ldrsb r5, [r1], #1
    data(2, 0xFB04, 0xF408)  # mul r4, r4, r8
    data(2, 0xFB05, 0x4409)  # mla r4, r5, r9, r4
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


noalloc.mark(_add)

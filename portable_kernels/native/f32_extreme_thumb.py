"""Float32 amax / amin on Thumb-2 boards (Cortex-M3 / M7): f32_extreme_viper's
extreme() in assembler (a 2x2 max pool's reduction runs ~15 instructions per
element here against ~130 in viper on the emulated boards). The same ordering keys
(the bits as sign and magnitude, negated for amin) and the same results: a
NaN wins (the first one met, its bits kept), of equal keys the first
stays. No float object, does not allocate. The high-register adds and
compares are emitted with data(), everything else is a Thumb-1 mnemonic.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

# only Thumb-2 dists carry it (host_tools/deploy/build_targets.march_list)
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")

# the step's state: [0] sign [1] x [2] o cursor [3] walk [4] kept outer
# index [5] output's first element [6] kept inner left [7] reduced offsets
# cursor [8] their end [9] their start
_S = array("i", [0] * 10)


def usable(walk):
    """Whether extreme() takes this walk (reduce_extreme.extreme_walk's): a
    reduced inner run of more than one element needs a nonzero stride."""
    return walk[4] == 1 or walk[5] != 0


def extreme(x, o, walk, sign):
    """f32_extreme_viper.extreme's arguments and results."""
    _S[0] = sign
    _extreme(x, o, walk, _S)


@micropython.asm_thumb
def _extreme(r0, r1, r2, r3):
    # walk (r2): [0] kept outer count [4] kept inner count [8] kept inner
    # stride [12] reduced outer count [16] reduced inner count [20] reduced
    # inner stride, then the kept and the reduced outer offsets (elements).
    # r3 state (above); r8 reduced inner stride (bytes), r9 sign, r10 the
    # bits of inf, r12 a reduced inner run's bytes
    mov(r4, r8)
    mov(r5, r9)
    mov(r6, r10)
    mov(r7, r11)
    push({r4, r5, r6, r7})
    ldr(r4, [r3, 0])
    mov(r9, r4)
    ldr(r4, [r2, 20])
    lsl(r4, r4, 2)
    mov(r8, r4)
    ldr(r5, [r2, 16])
    mul(r4, r5)
    mov(r12, r4)
    mov(r4, 255)
    lsl(r4, r4, 23)
    mov(r10, r4)
    str(r0, [r3, 4])
    str(r1, [r3, 8])
    str(r2, [r3, 12])
    ldr(r4, [r2, 0])
    add(r4, 6)
    lsl(r4, r4, 2)
    add(r4, r2, r4)
    str(r4, [r3, 36])  # the reduced offsets
    ldr(r5, [r2, 12])
    lsl(r5, r5, 2)
    add(r4, r4, r5)
    str(r4, [r3, 32])
    mov(r4, 0)
    str(r4, [r3, 16])
    label(AL)
    ldr(r2, [r3, 12])
    ldr(r4, [r3, 16])
    ldr(r5, [r2, 0])
    cmp(r4, r5)
    bge(DONE)
    add(r5, r4, 6)
    lsl(r5, r5, 2)
    add(r5, r2, r5)
    ldr(r5, [r5, 0])
    lsl(r5, r5, 2)
    ldr(r0, [r3, 4])
    add(r5, r0, r5)
    str(r5, [r3, 20])  # the first kept position of this outer offset
    ldr(r5, [r2, 4])
    str(r5, [r3, 24])
    add(r4, 1)
    str(r4, [r3, 16])
    label(JL)
    ldr(r5, [r3, 24])
    cmp(r5, 0)
    ble(AL)
    sub(r5, 1)
    str(r5, [r3, 24])
    ldr(r6, [r3, 20])
    ldr(r4, [r6, 0])  # best: the first element
    lsl(r0, r4, 1)
    lsr(r0, r0, 1)
    data(2, 0x4550)  # cmp r0, r10
    bhi(STORE)  # a NaN first: the result
    asr(r1, r4, 31)
    eor(r0, r1)
    sub(r0, r0, r1)
    mov(r1, r9)
    mul(r0, r1)
    mov(r5, r0)  # its key
    ldr(r2, [r3, 36])
    label(RA)
    ldr(r6, [r2, 0])
    add(r2, 4)
    str(r2, [r3, 28])
    lsl(r6, r6, 2)
    ldr(r7, [r3, 20])
    add(r6, r6, r7)
    mov(r7, r6)
    data(2, 0x4467)  # add r7, r12: the end of the run
    label(RJ)
    ldr(r1, [r6, 0])
    data(2, 0x4446)  # add r6, r8
    lsl(r0, r1, 1)
    lsr(r0, r0, 1)
    data(2, 0x4550)  # cmp r0, r10
    bhi(NANV)
    asr(r2, r1, 31)
    eor(r0, r2)
    sub(r0, r0, r2)
    mov(r2, r9)
    mul(r0, r2)
    cmp(r0, r5)
    ble(NOUP)
    mov(r4, r1)
    mov(r5, r0)
    label(NOUP)
    cmp(r6, r7)
    bne(RJ)
    ldr(r2, [r3, 28])
    ldr(r1, [r3, 32])
    cmp(r2, r1)
    bne(RA)
    b(STORE)
    label(NANV)
    mov(r4, r1)
    label(STORE)
    ldr(r1, [r3, 8])
    str(r4, [r1, 0])
    add(r1, 4)
    str(r1, [r3, 8])
    ldr(r6, [r3, 20])
    ldr(r2, [r3, 12])
    ldr(r7, [r2, 8])
    lsl(r7, r7, 2)
    add(r6, r6, r7)
    str(r6, [r3, 20])
    b(JL)
    label(DONE)
    pop({r4, r5, r6, r7})
    mov(r8, r4)
    mov(r9, r5)
    mov(r10, r6)
    mov(r11, r7)
    mov(r0, 0)

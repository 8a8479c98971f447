"""Float32 matrix products (mm, bmm, addmm) and f32_conv_thumb's convolutions
with a double-precision FPU (Cortex-M7; emitters.FPU_DP): f32_mm_thumb's
arguments, ctl and cx words (the strided ones included), computed with FPU
instructions. Each float32 operand is widened to a double (exact), the
products (exact in a double: 24 x 24 bits) are added in order to a double
accumulator by VFMA.F64, starting from the bias, and the sum is rounded once
to float32 (the FPU's round to nearest): as the bytecode's float64 running
sum, with IEEE inf/NaN, so it never refuses an operand (returns 0). Four
output columns at a time share each element of a's row: 14 instructions per
4 multiply-accumulates. Every FPU instruction is emitted with data(), so the
module compiles for every Thumb arch (boards compile every module; only a
Cortex-M7 imports it); d8-d15, which the caller keeps, are saved.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
import micropython

# Thumb-2 dists (host_tools/deploy/build_targets.march_list): whether the CPU has the FPU is
# read on the device (emitters), and a dist's -march need not say (its FPU code is data())
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")

CX_BYTES = 116
_CX = bytearray(CX_BYTES)


def mm(xm, w, acc, xe, a, b, o, bias, ctl):
    _setup(_CX, ctl, bias)
    return _mm(_CX, a, b, o)


@micropython.asm_thumb
def _scratch(r0, r1, r2):
    # f32_mm_thumb's: the decoded row's scratch, which the FPU needs not
    mov(r0, 0)


@micropython.asm_thumb
def _setup(r0, r1, r2):
    # cx[0:8] = ctl[0:8]; cx[8] = address of the bias
    ldr(r3, [r1, 0])
    str(r3, [r0, 0])
    ldr(r3, [r1, 4])
    str(r3, [r0, 4])
    ldr(r3, [r1, 8])
    str(r3, [r0, 8])
    ldr(r3, [r1, 12])
    str(r3, [r0, 12])
    ldr(r3, [r1, 16])
    str(r3, [r0, 16])
    ldr(r3, [r1, 20])
    str(r3, [r0, 20])
    ldr(r3, [r1, 24])
    str(r3, [r0, 24])
    ldr(r3, [r1, 28])
    str(r3, [r0, 28])
    str(r2, [r0, 32])
    mov(r0, 0)


@micropython.asm_thumb
def _mm(r0, r1, r2, r3):
    # r7 cx: f32_mm_thumb's words [0..32], [84..112]; state: [36] a row, [40] b
    # batch, [44] next output, [48] bias row, [52] columns left, [56] rows
    # left, [60] batches left, [64] b column, [68] bias element, [72] b row
    # stride in bytes. Inner loop: r0 a cursor, r1 end of a's row, r2 b
    # cursor, r3 b row stride; d1 a's element, d4-d7 b's, d8-d11 the sums
    data(2, 0xED2D, 0x8B10)  # vpush {d8-d15}
    mov(r7, r0)
    ldr(r4, [r7, 84])
    add(r1, r1, r4)
    ldr(r4, [r7, 88])
    add(r2, r2, r4)
    ldr(r4, [r7, 92])
    add(r3, r3, r4)
    str(r1, [r7, 36])
    str(r2, [r7, 40])
    str(r3, [r7, 44])
    ldr(r4, [r7, 32])
    ldr(r5, [r7, 96])
    add(r4, r4, r5)
    str(r4, [r7, 112])
    ldr(r4, [r7, 100])
    cmp(r4, 0)
    bne(BS)
    ldr(r4, [r7, 12])
    lsl(r4, r4, 2)
    label(BS)
    str(r4, [r7, 72])
    ldr(r4, [r7, 0])
    str(r4, [r7, 60])
    label(BATCH)
    ldr(r4, [r7, 4])
    str(r4, [r7, 56])
    ldr(r4, [r7, 112])
    str(r4, [r7, 48])
    label(ROW)
    ldr(r4, [r7, 40])
    str(r4, [r7, 64])
    ldr(r4, [r7, 48])
    str(r4, [r7, 68])
    ldr(r4, [r7, 12])
    str(r4, [r7, 52])
    label(COL)
    ldr(r4, [r7, 52])
    cmp(r4, 4)
    bge(FOUR)
    b(ONE)
    label(FOUR)
    mov(r4, 0)
    data(2, 0xEC44, 0x4B18)  # vmov d8, r4, r4
    data(2, 0xEC44, 0x4B19)  # vmov d9, r4, r4
    data(2, 0xEC44, 0x4B1A)  # vmov d10, r4, r4
    data(2, 0xEC44, 0x4B1B)  # vmov d11, r4, r4
    ldr(r4, [r7, 20])
    cmp(r4, 0)
    beq(NB4)
    ldr(r5, [r7, 68])
    ldr(r6, [r7, 28])
    lsl(r6, r6, 2)
    data(2, 0xED95, 0x0A00)  # vldr s0, [r5, 0]
    add(r5, r5, r6)
    data(2, 0xEEB7, 0x8AC0)  # vcvt.f64.f32 d8, s0
    data(2, 0xED95, 0x0A00)  # vldr s0, [r5, 0]
    add(r5, r5, r6)
    data(2, 0xEEB7, 0x9AC0)  # vcvt.f64.f32 d9, s0
    data(2, 0xED95, 0x0A00)  # vldr s0, [r5, 0]
    add(r5, r5, r6)
    data(2, 0xEEB7, 0xAAC0)  # vcvt.f64.f32 d10, s0
    data(2, 0xED95, 0x0A00)  # vldr s0, [r5, 0]
    add(r5, r5, r6)
    data(2, 0xEEB7, 0xBAC0)  # vcvt.f64.f32 d11, s0
    str(r5, [r7, 68])
    label(NB4)
    ldr(r0, [r7, 36])
    ldr(r1, [r7, 8])
    lsl(r1, r1, 2)
    add(r1, r0, r1)
    ldr(r2, [r7, 64])
    ldr(r3, [r7, 72])
    label(L4)
    data(2, 0xECB0, 0x0A01)  # vldmia r0!, {s0}
    data(2, 0xEEB7, 0x1AC0)  # vcvt.f64.f32 d1, s0
    data(2, 0xEC92, 0x2A04)  # vldmia r2, {s4-s7}
    add(r2, r2, r3)
    data(2, 0xEEB7, 0x4AC2)  # vcvt.f64.f32 d4, s4
    data(2, 0xEEB7, 0x5AE2)  # vcvt.f64.f32 d5, s5
    data(2, 0xEEB7, 0x6AC3)  # vcvt.f64.f32 d6, s6
    data(2, 0xEEB7, 0x7AE3)  # vcvt.f64.f32 d7, s7
    data(2, 0xEEA1, 0x8B04)  # vfma.f64 d8, d1, d4
    data(2, 0xEEA1, 0x9B05)  # vfma.f64 d9, d1, d5
    data(2, 0xEEA1, 0xAB06)  # vfma.f64 d10, d1, d6
    data(2, 0xEEA1, 0xBB07)  # vfma.f64 d11, d1, d7
    cmp(r0, r1)
    blt(L4)
    ldr(r4, [r7, 44])
    data(2, 0xEEB7, 0x0BC8)  # vcvt.f32.f64 s0, d8
    data(2, 0xED84, 0x0A00)  # vstr s0, [r4, 0]
    data(2, 0xEEB7, 0x0BC9)  # vcvt.f32.f64 s0, d9
    data(2, 0xED84, 0x0A01)  # vstr s0, [r4, 4]
    data(2, 0xEEB7, 0x0BCA)  # vcvt.f32.f64 s0, d10
    data(2, 0xED84, 0x0A02)  # vstr s0, [r4, 8]
    data(2, 0xEEB7, 0x0BCB)  # vcvt.f32.f64 s0, d11
    data(2, 0xED84, 0x0A03)  # vstr s0, [r4, 12]
    add(r4, 16)
    str(r4, [r7, 44])
    ldr(r4, [r7, 64])
    add(r4, 16)
    str(r4, [r7, 64])
    ldr(r4, [r7, 52])
    sub(r4, 4)
    str(r4, [r7, 52])
    b(COL)
    label(ONE)
    cmp(r4, 0)
    beq(ROWEND)
    mov(r4, 0)
    data(2, 0xEC44, 0x4B18)  # vmov d8, r4, r4
    ldr(r4, [r7, 20])
    cmp(r4, 0)
    beq(NB1)
    ldr(r5, [r7, 68])
    data(2, 0xED95, 0x0A00)  # vldr s0, [r5, 0]
    data(2, 0xEEB7, 0x8AC0)  # vcvt.f64.f32 d8, s0
    ldr(r6, [r7, 28])
    lsl(r6, r6, 2)
    add(r5, r5, r6)
    str(r5, [r7, 68])
    label(NB1)
    ldr(r0, [r7, 36])
    ldr(r1, [r7, 8])
    lsl(r1, r1, 2)
    add(r1, r0, r1)
    ldr(r2, [r7, 64])
    ldr(r3, [r7, 72])
    label(L1)
    data(2, 0xECB0, 0x0A01)  # vldmia r0!, {s0}
    data(2, 0xEEB7, 0x1AC0)  # vcvt.f64.f32 d1, s0
    data(2, 0xED92, 0x2A00)  # vldr s4, [r2, 0]
    add(r2, r2, r3)
    data(2, 0xEEB7, 0x4AC2)  # vcvt.f64.f32 d4, s4
    data(2, 0xEEA1, 0x8B04)  # vfma.f64 d8, d1, d4
    cmp(r0, r1)
    blt(L1)
    ldr(r4, [r7, 44])
    data(2, 0xEEB7, 0x0BC8)  # vcvt.f32.f64 s0, d8
    data(2, 0xED84, 0x0A00)  # vstr s0, [r4, 0]
    add(r4, 4)
    str(r4, [r7, 44])
    ldr(r4, [r7, 64])
    add(r4, 4)
    str(r4, [r7, 64])
    ldr(r4, [r7, 52])
    sub(r4, 1)
    str(r4, [r7, 52])
    b(COL)
    label(ROWEND)
    ldr(r4, [r7, 44])
    ldr(r5, [r7, 104])
    add(r4, r4, r5)
    str(r4, [r7, 44])
    ldr(r4, [r7, 36])
    ldr(r5, [r7, 8])
    lsl(r5, r5, 2)
    add(r4, r4, r5)
    str(r4, [r7, 36])
    ldr(r4, [r7, 48])
    ldr(r5, [r7, 24])
    lsl(r5, r5, 2)
    add(r4, r4, r5)
    str(r4, [r7, 48])
    ldr(r4, [r7, 56])
    sub(r4, 1)
    str(r4, [r7, 56])
    beq(BATCHEND)
    b(ROW)
    label(BATCHEND)
    ldr(r4, [r7, 112])
    ldr(r5, [r7, 108])
    add(r4, r4, r5)
    str(r4, [r7, 112])
    ldr(r4, [r7, 40])
    ldr(r5, [r7, 16])
    lsl(r5, r5, 2)
    add(r4, r4, r5)
    str(r4, [r7, 40])
    ldr(r4, [r7, 60])
    sub(r4, 1)
    str(r4, [r7, 60])
    beq(DONE)
    b(BATCH)
    label(DONE)
    data(2, 0xECBD, 0x8B10)  # vpop {d8-d15}
    mov(r0, 0)

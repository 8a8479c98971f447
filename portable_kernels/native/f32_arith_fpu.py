"""Float32 add, sub and mul with FPU instructions (VADD.F32 / VSUB.F32 /
VMUL.F32: IEEE float32 arithmetic, round to nearest, denormals, inf and
NaN), so bit for bit what the bytecode steps give (a float64 result of two
float32 operands rounded to float32), NaN payloads aside. f32_arith_viper's
binary() for ports with a single-precision FPU (emitters.FPU: Cortex-M4F /
M7), which never stops early. FPU instructions are emitted with data(), so
the module compiles for every Thumb arch. Does not allocate.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.native.thumb_steps import at

# Thumb-2 dists (host_tools/deploy/build_targets.march_list): whether the CPU has the FPU is
# read on the device (emitters), and a dist's -march need not say (its FPU code is data())
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")

ADD = 0
SUB = 1
MUL = 2

_CTL = array("i", [0] * 7)
_SCALAR = array("f", [0.0])  # a .Scalar step's operand, stored before each call


def prepare(a, b, out, op):
    """(step, ctx) of out = a OP b over whole float32 tensors of out's size
    (no broadcasting): the step is _flat itself, its control array holding
    the operands' addresses (load time)."""
    o = at(out)
    ctl = array("i", [at(a), at(b), o, o + 4 * out.numel, op])
    return _flat, (ctl, a.data, b.data, out.data)  # the buffers are kept alive by the step


def scalar(ctx):
    """The same with b a Python float (ctx[1]), stored into _SCALAR (float32)
    and read at stride 0."""
    _SCALAR[0] = ctx[1]
    c = _CTL  # rare: the row steps' array, all of it written
    c[0] = ctx[3]
    c[1] = ctx[4]
    c[2] = c[3] = c[4] = c[6] = 0
    c[5] = 4
    _binary(ctx[0], _SCALAR, ctx[2], c)


def row(rctx, ia, ib, io):
    """util/f32_arith's row step (loops.run_rows), rctx (a, b, o, op, n, sa, sb)."""
    _CTL[0] = rctx[3]
    _CTL[1] = rctx[4]
    _CTL[2] = 4 * ia
    _CTL[3] = 4 * ib
    _CTL[4] = 4 * io
    _CTL[5] = 4 * rctx[5]
    _CTL[6] = 4 * rctx[6]
    _binary(rctx[0], rctx[1], rctx[2], _CTL)


def binary(a, b, o, op, n, ia, ib, io, sa, sb):
    """o[io + i] = a[ia + i * sa] OP b[ib + i * sb] for i < n (f32_arith_viper.binary's
    arguments); returns n."""
    c = _CTL
    c[0] = op
    c[1] = n
    c[2] = 4 * ia
    c[3] = 4 * ib
    c[4] = 4 * io
    c[5] = 4 * sa
    c[6] = 4 * sb
    _binary(a, b, o, c)
    return n


@micropython.asm_thumb
def _binary(r0, r1, r2, r3):
    # r3 ctl: op, n, byte offsets of a, b, o, byte strides of a, b
    ldr(r4, [r3, 8])
    add(r0, r0, r4)
    ldr(r4, [r3, 12])
    add(r1, r1, r4)
    ldr(r4, [r3, 16])
    add(r2, r2, r4)
    ldr(r5, [r3, 20])
    ldr(r6, [r3, 24])
    ldr(r4, [r3, 4])
    cmp(r4, 0)
    ble(DONE)
    lsl(r4, r4, 2)
    add(r4, r2, r4)  # the end of o's elements
    ldr(r7, [r3, 0])
    cmp(r7, 1)
    beq(SUB)
    bgt(MUL)
    label(ADD)
    data(2, 0xED90, 0x0A00)  # vldr s0, [r0, 0]
    data(2, 0xEDD1, 0x0A00)  # vldr s1, [r1, 0]
    data(2, 0xEE30, 0x0A20)  # vadd.f32 s0, s0, s1
    data(2, 0xED82, 0x0A00)  # vstr s0, [r2, 0]
    add(r0, r0, r5)
    add(r1, r1, r6)
    add(r2, 4)
    cmp(r2, r4)
    blt(ADD)
    b(DONE)
    label(SUB)
    data(2, 0xED90, 0x0A00)  # vldr s0, [r0, 0]
    data(2, 0xEDD1, 0x0A00)  # vldr s1, [r1, 0]
    data(2, 0xEE30, 0x0A60)  # vsub.f32 s0, s0, s1
    data(2, 0xED82, 0x0A00)  # vstr s0, [r2, 0]
    add(r0, r0, r5)
    add(r1, r1, r6)
    add(r2, 4)
    cmp(r2, r4)
    blt(SUB)
    b(DONE)
    label(MUL)
    data(2, 0xED90, 0x0A00)  # vldr s0, [r0, 0]
    data(2, 0xEDD1, 0x0A00)  # vldr s1, [r1, 0]
    data(2, 0xEE20, 0x0A20)  # vmul.f32 s0, s0, s1
    data(2, 0xED82, 0x0A00)  # vstr s0, [r2, 0]
    add(r0, r0, r5)
    add(r1, r1, r6)
    add(r2, 4)
    cmp(r2, r4)
    blt(MUL)
    label(DONE)
    mov(r0, 0)


@micropython.asm_thumb
def _flat(r0):
    # r0: the context's items; [0] the control array: [0] a [4] b [8] o [12] o's end [16] op
    # (addresses). An assembler step (native/thumb_steps.py): no bytecode frame per call.
    ldr(r0, [r0, 0])
    ldr(r0, [r0, 12])
    ldr(r1, [r0, 0])
    ldr(r2, [r0, 4])
    ldr(r3, [r0, 8])
    ldr(r4, [r0, 12])
    ldr(r5, [r0, 16])
    cmp(r3, r4)
    bcs(DONE)
    cmp(r5, 1)
    beq(SUB)
    bgt(MUL)
    label(ADD)
    data(2, 0xECB1, 0x0A01)  # vldmia r1!, {s0}
    data(2, 0xECF2, 0x0A01)  # vldmia r2!, {s1}
    data(2, 0xEE30, 0x0A20)  # vadd.f32 s0, s0, s1
    data(2, 0xECA3, 0x0A01)  # vstmia r3!, {s0}
    cmp(r3, r4)
    bcc(ADD)
    b(DONE)
    label(SUB)
    data(2, 0xECB1, 0x0A01)  # vldmia r1!, {s0}
    data(2, 0xECF2, 0x0A01)  # vldmia r2!, {s1}
    data(2, 0xEE30, 0x0A60)  # vsub.f32 s0, s0, s1
    data(2, 0xECA3, 0x0A01)  # vstmia r3!, {s0}
    cmp(r3, r4)
    bcc(SUB)
    b(DONE)
    label(MUL)
    data(2, 0xECB1, 0x0A01)  # vldmia r1!, {s0}
    data(2, 0xECF2, 0x0A01)  # vldmia r2!, {s1}
    data(2, 0xEE20, 0x0A20)  # vmul.f32 s0, s0, s1
    data(2, 0xECA3, 0x0A01)  # vstmia r3!, {s0}
    cmp(r3, r4)
    bcc(MUL)
    label(DONE)
    mov(r0, 0)


noalloc.mark(_flat)

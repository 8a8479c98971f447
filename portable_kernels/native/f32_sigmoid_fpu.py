"""Float32 sigmoid and tanh with a double-precision FPU (Cortex-M7;
emitters.FPU_DP), the step itself an assembler function (native/
thumb_steps.py: no bytecode frame per call). Every input, inf and NaN
included, is done here: it never stops early, needs no bytecode tail and
does not allocate.

In doubles: z = |x| log2(e) (or 2 log2(e) for tanh), k = z rounded to
nearest, 2**-(z - k) = e**s with s = (k - z) ln2 in [-0.35, 0.35] by its
Taylor series to s**10 (relative error below 3e-13), times 2**-k (built in
the exponent field): u = e**-|x| (or e**-2|x|). Then
  sigmoid(|x|) = 1 / (1 + u), sigmoid(-|x|) = u / (1 + u),
  tanh(+-|x|) = +-(1 - u) / (1 + u),
rounded once to float32 (VCVT: to nearest, denormals). tanh of
|x| < 2**-12 is x (relative error below 2**-25); sigmoid of x >= 128 is
1.0 and of x <= -128 0.0 (as float32 rounds them), tanh of |x| >= 16 +-1.0,
a NaN stays itself. About 60 instructions per element (f32_sigmoid_thumb's
fixed point: ~230). FPU instructions are emitted with data(): the module
compiles for every Thumb arch (a Cortex-M7 alone imports it); it uses
d0-d7 only, which the caller does not keep.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.native.thumb_steps import address, at

# Thumb-2 dists (host_tools/deploy/build_targets.march_list): whether the CPU has the FPU is
# read on the device (emitters), and a dist's -march need not say (its FPU code is data())
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")

SIGMOID = 0
TANH = 1

# float64 constants (from bytes: a 32-bit port's floats may be single precision; in a
# heap array: VLDR needs them word-aligned, which a bytes constant in ROMFS need not be):
# [0] log2(e) [8] 2 log2(e) [16] ln2 [24 .. 104] 1/10!, 1/9!, ..., 1/1!, 1/0!
_K = array(
    "d",
    b"\xfe\x82\x2b\x65\x47\x15\xf7\x3f\xfe\x82\x2b\x65\x47\x15\x07\x40\xef\x39\xfa\xfe\x42\x2e\xe6\x3f"
    b"\x5c\x9f\x78\xb7\x4f\x7e\x92\x3e\x34\xc7\x56\xa5\xe3\x1d\xc7\x3e\x1a\xa0\x01\x1a\xa0\x01\xfa\x3e"
    b"\x1a\xa0\x01\x1a\xa0\x01\x2a\x3f\x17\x6c\xc1\x16\x6c\xc1\x56\x3f\x11\x11\x11\x11\x11\x11\x81\x3f"
    b"\x55\x55\x55\x55\x55\x55\xa5\x3f\x55\x55\x55\x55\x55\x55\xc5\x3f\x00\x00\x00\x00\x00\x00\xe0\x3f"
    b"\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\xf0\x3f",
)
# per op, the float32 bits >> 8 of |x| from which the result saturates (128.0, 16.0)
# and below which tanh is x (2**-12; 0: never for sigmoid): small ints on a 32-bit port
_SAT = (0x430000, 0x418000)
_SMALL = (0, 0x398000)


def prepare(x, out, op):
    """(step, ctx) of out = sigmoid(x) (op SIGMOID) or tanh(x) (op TANH),
    float32 tensors of the same size (in place allowed). Load time."""
    o = at(out)
    ctl = array("i", [at(x), o, o + 4 * out.numel, op, address(_K), _SAT[op], _SMALL[op], 0x3FF000])
    return _step, (ctl, x.data, out.data)  # the buffers are kept alive by the step


@micropython.asm_thumb
def _step(r0):
    # r0: the context's items; [0] the control array: [0] x [4] o [8] o's end [12] op
    # [16] the constants [20] saturation bits >> 8 [24] small-x bits >> 8 [28] 0x3FF000
    # (1.0's high word >> 8). r1 x cursor, r2 o cursor, r3 o's end, r4 x's bits, r5 |x|'s,
    # r7 the constants; d7 log2(e) or 2 log2(e), d6 1.0, d5 ln2, d4 2**-k (s8 stays 0)
    ldr(r0, [r0, 0])
    ldr(r0, [r0, 12])
    ldr(r1, [r0, 0])
    ldr(r2, [r0, 4])
    ldr(r3, [r0, 8])
    ldr(r7, [r0, 16])
    ldr(r4, [r0, 12])
    data(2, 0xED97, 0x7B00)  # vldr d7, [r7, 0]
    cmp(r4, 0)
    beq(SIG)
    data(2, 0xED97, 0x7B02)  # vldr d7, [r7, 8]
    label(SIG)
    data(2, 0xED97, 0x5B04)  # vldr d5, [r7, 16]
    data(2, 0xEEB7, 0x6B00)  # vmov.f64 d6, 1.0
    mov(r5, 0)
    data(2, 0xEE04, 0x5A10)  # vmov s8, r5
    b(TEST)
    label(BIG)  # |x| >= the saturation point, inf or NaN
    mov(r6, 0xFF)
    lsl(r6, r6, 23)
    cmp(r5, r6)
    bhi(STOREX)  # NaN
    mov(r5, 127)
    lsl(r5, r5, 23)  # 1.0
    ldr(r6, [r0, 12])
    cmp(r6, 0)
    bne(TSAT)
    cmp(r4, 0)
    bge(STORE)
    mov(r5, 0)  # sigmoid of x <= -128
    b(STORE)
    label(TSAT)
    lsr(r6, r4, 31)
    lsl(r6, r6, 31)
    orr(r5, r6)  # +-1.0
    b(STORE)
    label(STOREX)
    mov(r5, r4)
    label(STORE)
    str(r5, [r2, 0])
    add(r2, 4)
    label(TEST)
    cmp(r2, r3)
    bcc(LOOP)
    b(DONE)
    label(LOOP)
    ldr(r4, [r1, 0])
    add(r1, 4)
    lsl(r5, r4, 1)
    lsr(r5, r5, 1)  # |x|'s bits
    ldr(r6, [r0, 20])
    lsl(r6, r6, 8)
    cmp(r5, r6)
    bcs(BIG)
    ldr(r6, [r0, 24])
    lsl(r6, r6, 8)
    cmp(r5, r6)
    bcc(STOREX)  # tanh of |x| < 2**-12
    data(2, 0xEE00, 0x5A10)  # vmov s0, r5
    data(2, 0xEEB7, 0x0AC0)  # vcvt.f64.f32 d0, s0
    data(2, 0xEE20, 0x0B07)  # vmul.f64 d0, d0, d7: z
    data(2, 0xEEBD, 0x1B40)  # vcvtr.s32.f64 s2, d0: k, to nearest
    data(2, 0xEEB8, 0x2BC1)  # vcvt.f64.s32 d2, s2
    data(2, 0xEE11, 0x6A10)  # vmov r6, s2
    data(2, 0xEE32, 0x0B40)  # vsub.f64 d0, d2, d0: k - z
    data(2, 0xEE20, 0x3B05)  # vmul.f64 d3, d0, d5: s
    # e**s by Horner, 1/j! for j = 10 .. 0, the sum alternating between d1 and d2
    data(2, 0xED97, 0x1B06)  # vldr d1, [r7, 24]
    data(2, 0xED97, 0x2B08)  # vldr d2, [r7, 32]
    data(2, 0xEEA1, 0x2B03)  # vfma.f64 d2, d1, d3
    data(2, 0xED97, 0x1B0A)  # vldr d1, [r7, 40]
    data(2, 0xEEA2, 0x1B03)  # vfma.f64 d1, d2, d3
    data(2, 0xED97, 0x2B0C)  # vldr d2, [r7, 48]
    data(2, 0xEEA1, 0x2B03)  # vfma.f64 d2, d1, d3
    data(2, 0xED97, 0x1B0E)  # vldr d1, [r7, 56]
    data(2, 0xEEA2, 0x1B03)  # vfma.f64 d1, d2, d3
    data(2, 0xED97, 0x2B10)  # vldr d2, [r7, 64]
    data(2, 0xEEA1, 0x2B03)  # vfma.f64 d2, d1, d3
    data(2, 0xED97, 0x1B12)  # vldr d1, [r7, 72]
    data(2, 0xEEA2, 0x1B03)  # vfma.f64 d1, d2, d3
    data(2, 0xED97, 0x2B14)  # vldr d2, [r7, 80]
    data(2, 0xEEA1, 0x2B03)  # vfma.f64 d2, d1, d3
    data(2, 0xED97, 0x1B16)  # vldr d1, [r7, 88]
    data(2, 0xEEA2, 0x1B03)  # vfma.f64 d1, d2, d3
    data(2, 0xED97, 0x2B18)  # vldr d2, [r7, 96]
    data(2, 0xEEA1, 0x2B03)  # vfma.f64 d2, d1, d3
    data(2, 0xED97, 0x1B1A)  # vldr d1, [r7, 104]
    data(2, 0xEEA2, 0x1B03)  # vfma.f64 d1, d2, d3
    ldr(r5, [r0, 28])
    lsl(r5, r5, 8)
    lsl(r6, r6, 20)
    sub(r5, r5, r6)
    data(2, 0xEE04, 0x5A90)  # vmov s9, r5: d4 = 2**-k
    data(2, 0xEE21, 0x1B04)  # vmul.f64 d1, d1, d4: u
    data(2, 0xEE31, 0x2B06)  # vadd.f64 d2, d1, d6: 1 + u
    ldr(r6, [r0, 12])
    cmp(r6, 0)
    bne(TANH)
    cmp(r4, 0)
    blt(SNEG)
    data(2, 0xEE86, 0x0B02)  # vdiv.f64 d0, d6, d2
    b(OUT)
    label(SNEG)
    data(2, 0xEE81, 0x0B02)  # vdiv.f64 d0, d1, d2
    b(OUT)
    label(TANH)
    data(2, 0xEE36, 0x1B41)  # vsub.f64 d1, d6, d1: 1 - u
    data(2, 0xEE81, 0x0B02)  # vdiv.f64 d0, d1, d2
    cmp(r4, 0)
    bge(OUT)
    data(2, 0xEEB1, 0x0B40)  # vneg.f64 d0, d0
    label(OUT)
    data(2, 0xEEB7, 0x0BC0)  # vcvt.f32.f64 s0, d0
    data(2, 0xED82, 0x0A00)  # vstr s0, [r2, 0]
    add(r2, 4)
    b(TEST)
    label(DONE)
    mov(r0, 0)


noalloc.mark(_step)

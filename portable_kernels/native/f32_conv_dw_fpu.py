"""Float32 3x3 depthwise convolution (one input channel and one output
channel per group; any stride and padding, dilation 1) with a
double-precision FPU (Cortex-M7; emitters.FPU_DP), called directly as the
step (native/thumb_steps.py). Per channel: its input plane is widened to
doubles into a zeroed padded plane (shared scratch, (h + 2 ph) x
(w + 2 pw) doubles; its border stays 0.0), the 9 weights and the bias sit
in d7-d15 and d6, and each output is the bias plus the 9 products added in
order by VFMA.F64 (exact products) in a double, rounded once to float32: as
f32_mm_fpu and the bytecode's float64 running sum, with IEEE inf/NaN. 27
instructions per output (3 per multiply-accumulate) where f32_conv_thumb's
im2col products took ~24 per multiply-accumulate for a depthwise layer
(one 9-term row per channel). Every FPU instruction is emitted with data(),
so the module compiles for every Thumb-2 arch; only a Cortex-M7 imports it.
d8-d15, which the caller keeps, are saved. Does not allocate.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.native.thumb_steps import address, at
from portable_kernels.util import scratch

# Thumb-2 dists (host_tools/deploy/build_targets.march_list); the FPU is read on the device
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")
_ZERO = 17  # the control word holding 0.0: the bias of a convolution without one


def prepare(x, weight, bias, out, ctl):
    """(step, ctx) of a checked float32 depthwise 3x3 convolution, dilation 1
    (ctl: op_convolution's 17 geometry words)."""
    n, groups, _, _, h, w, _, _, sh, sw, ph, pw, _, _, oh, ow, _ = ctl
    hp, wp = h + 2 * ph, w + 2 * pw
    # [0] x [4] weights [8] bias [12] bias step [16] out [20] planes [24] groups [28] h
    # [32] w * 4 [36] w [40] wp * 8 [44] interior offset [48] plane words [52] oh [56] ow
    # [60] sh * wp * 8 [64] sw * 8 [68] 0.0; scratch words [80]..[112]
    words = [at(x), at(weight), 0, 4, at(out), n * groups, groups, h, w * 4, w, wp * 8]
    words += [(ph * wp + pw) * 8, hp * wp * 2, oh, ow, sh * wp * 8, sw * 8, 0] + [0] * 11
    c = array("i", words)
    if bias is None:
        c[2], c[3] = address(c) + 4 * _ZERO, 0
    else:
        c[2] = at(bias)
    plane = scratch.words(hp * wp * 2, "dw plane")
    return _conv_dw, (c, plane, x.buf, weight.buf, out.buf, None if bias is None else bias.buf)


@micropython.asm_thumb
def _conv_dw(r0):
    ldr(r7, [r0, 0])
    ldr(r7, [r7, 12])  # the control words
    ldr(r6, [r0, 4])
    ldr(r6, [r6, 12])
    str(r6, [r7, 112])  # the padded plane (read at every call: the scratch may have grown)
    data(2, 0xED2D, 0x8B10)  # vpush {d8-d15}
    mov(r1, r6)
    ldr(r2, [r7, 48])
    mov(r3, 0)
    label(ZERO)  # the plane to 0.0: its border stays so
    str(r3, [r1, 0])
    add(r1, 4)
    sub(r2, 1)
    bne(ZERO)
    ldr(r1, [r7, 0])
    str(r1, [r7, 80])
    ldr(r1, [r7, 16])
    str(r1, [r7, 84])
    ldr(r1, [r7, 4])
    str(r1, [r7, 88])
    ldr(r1, [r7, 8])
    str(r1, [r7, 92])
    ldr(r1, [r7, 20])
    str(r1, [r7, 96])
    ldr(r1, [r7, 24])
    str(r1, [r7, 100])
    label(PLANE)
    ldr(r1, [r7, 88])  # the channel's 9 weights to d7-d15, its bias to d6
    data(2, 0xED91, 0x0A00)  # vldr s0, [r1, 0]
    data(2, 0xEEB7, 0x7AC0)  # vcvt.f64.f32 d7, s0
    data(2, 0xED91, 0x0A01)  # vldr s0, [r1, 4]
    data(2, 0xEEB7, 0x8AC0)  # vcvt.f64.f32 d8, s0
    data(2, 0xED91, 0x0A02)  # vldr s0, [r1, 8]
    data(2, 0xEEB7, 0x9AC0)  # vcvt.f64.f32 d9, s0
    data(2, 0xED91, 0x0A03)  # vldr s0, [r1, 12]
    data(2, 0xEEB7, 0xAAC0)  # vcvt.f64.f32 d10, s0
    data(2, 0xED91, 0x0A04)  # vldr s0, [r1, 16]
    data(2, 0xEEB7, 0xBAC0)  # vcvt.f64.f32 d11, s0
    data(2, 0xED91, 0x0A05)  # vldr s0, [r1, 20]
    data(2, 0xEEB7, 0xCAC0)  # vcvt.f64.f32 d12, s0
    data(2, 0xED91, 0x0A06)  # vldr s0, [r1, 24]
    data(2, 0xEEB7, 0xDAC0)  # vcvt.f64.f32 d13, s0
    data(2, 0xED91, 0x0A07)  # vldr s0, [r1, 28]
    data(2, 0xEEB7, 0xEAC0)  # vcvt.f64.f32 d14, s0
    data(2, 0xED91, 0x0A08)  # vldr s0, [r1, 32]
    data(2, 0xEEB7, 0xFAC0)  # vcvt.f64.f32 d15, s0
    add(r1, 36)
    str(r1, [r7, 88])
    ldr(r1, [r7, 92])
    data(2, 0xED91, 0x0A00)  # vldr s0, [r1, 0]
    data(2, 0xEEB7, 0x6AC0)  # vcvt.f64.f32 d6, s0
    ldr(r2, [r7, 12])
    add(r1, r1, r2)
    str(r1, [r7, 92])
    ldr(r1, [r7, 100])
    sub(r1, 1)
    bne(SAMEIMAGE)
    ldr(r2, [r7, 4])  # the next image: the first channel's weights and bias again
    str(r2, [r7, 88])
    ldr(r2, [r7, 8])
    str(r2, [r7, 92])
    ldr(r1, [r7, 24])
    label(SAMEIMAGE)
    str(r1, [r7, 100])
    ldr(r0, [r7, 80])  # the input plane, widened to doubles into the padded plane's interior
    ldr(r1, [r7, 112])
    ldr(r2, [r7, 44])
    add(r1, r1, r2)
    ldr(r3, [r7, 28])
    label(CROW)
    mov(r2, r1)
    ldr(r4, [r7, 32])
    add(r4, r0, r4)
    label(CCOL)
    data(2, 0xECB0, 0x0A01)  # vldmia r0!, {s0}
    data(2, 0xEEB7, 0x1AC0)  # vcvt.f64.f32 d1, s0
    data(2, 0xECA2, 0x1B02)  # vstmia r2!, {d1}
    cmp(r0, r4)
    blt(CCOL)
    ldr(r4, [r7, 40])
    add(r1, r1, r4)
    sub(r3, 1)
    bne(CROW)
    str(r0, [r7, 80])  # the next plane
    ldr(r1, [r7, 112])
    str(r1, [r7, 108])
    ldr(r0, [r7, 84])
    ldr(r3, [r7, 52])
    str(r3, [r7, 104])
    ldr(r5, [r7, 64])
    label(OROW)  # r1 r2 r3: the window's three rows in the padded plane
    ldr(r1, [r7, 108])
    ldr(r6, [r7, 40])
    add(r2, r1, r6)
    add(r3, r2, r6)
    ldr(r4, [r7, 56])
    lsl(r4, r4, 2)
    add(r4, r0, r4)  # the end of the output row
    label(OCOL)  # one output: bias + 9 products, in a double, rounded once
    data(2, 0xEEB0, 0x5B46)  # vmov.f64 d5, d6
    data(2, 0xED91, 0x1B00)  # vldr d1, [r1, 0]
    data(2, 0xEEA1, 0x5B07)  # vfma.f64 d5, d1, d7
    data(2, 0xED91, 0x1B02)  # vldr d1, [r1, 8]
    data(2, 0xEEA1, 0x5B08)  # vfma.f64 d5, d1, d8
    data(2, 0xED91, 0x1B04)  # vldr d1, [r1, 16]
    data(2, 0xEEA1, 0x5B09)  # vfma.f64 d5, d1, d9
    data(2, 0xED92, 0x1B00)  # vldr d1, [r2, 0]
    data(2, 0xEEA1, 0x5B0A)  # vfma.f64 d5, d1, d10
    data(2, 0xED92, 0x1B02)  # vldr d1, [r2, 8]
    data(2, 0xEEA1, 0x5B0B)  # vfma.f64 d5, d1, d11
    data(2, 0xED92, 0x1B04)  # vldr d1, [r2, 16]
    data(2, 0xEEA1, 0x5B0C)  # vfma.f64 d5, d1, d12
    data(2, 0xED93, 0x1B00)  # vldr d1, [r3, 0]
    data(2, 0xEEA1, 0x5B0D)  # vfma.f64 d5, d1, d13
    data(2, 0xED93, 0x1B02)  # vldr d1, [r3, 8]
    data(2, 0xEEA1, 0x5B0E)  # vfma.f64 d5, d1, d14
    data(2, 0xED93, 0x1B04)  # vldr d1, [r3, 16]
    data(2, 0xEEA1, 0x5B0F)  # vfma.f64 d5, d1, d15
    data(2, 0xEEB7, 0x0BC5)  # vcvt.f32.f64 s0, d5
    data(2, 0xED80, 0x0A00)  # vstr s0, [r0, 0]
    add(r0, 4)
    add(r1, r1, r5)
    add(r2, r2, r5)
    add(r3, r3, r5)
    cmp(r0, r4)
    blt(OCOL)
    ldr(r1, [r7, 108])
    ldr(r6, [r7, 60])
    add(r1, r1, r6)
    str(r1, [r7, 108])
    ldr(r3, [r7, 104])
    sub(r3, 1)
    str(r3, [r7, 104])
    bne(OROW)
    str(r0, [r7, 84])
    ldr(r1, [r7, 96])
    sub(r1, 1)
    str(r1, [r7, 96])
    beq(END)
    b(PLANE)
    label(END)
    data(2, 0xECBD, 0x8B10)  # vpop {d8-d15}
    mov(r0, 0)


noalloc.mark(_conv_dw)

"""Float32 layer norm rows on Thumb-2 boards without an FPU (Cortex-M3:
emitters.THUMB2 and not emitters.FPU). Per row, `_stats` (assembler, integer
only) takes the row's largest exponent emax and each x as the integer
X = mantissa >> (emax - e) (x == X * 2**(emax - 150) to within 2**-24 of the
largest element), and sums X and X * X exactly in 64 bits (SMLAL); the row's
mean and biased variance follow from those exact sums in Python ints
(n * sum(X * X) - sum(X)**2: no cancellation), rstd = 1 / sqrt(var + eps).
The elements then go through f32_arith_thumb's correctly rounded float32
soft-float: (x - mean) * rstd, * w, + b (no float object per element; inf /
NaN elements take util/f32_tail's bytecode). A row holding inf / NaN runs
in op_native_layer_norm's bytecode. Per row a few Python floats are boxed.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
import math
from array import array

import micropython

from portable_kernels.native.f32_arith_thumb import ADD, MUL, SUB, binary
from portable_kernels.util.f32_tail import tail

# only Thumb-2 dists carry it (host_tools/deploy/build_targets.march_list)
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")


def prepare(x, o, rows, m, w, b, eps, save_mean, save_rstd, bytecode_row):
    """ctx for `step`; bytecode_row(x, o, i, m, eps, w, b, save_mean, save_rstd, r)
    runs a row holding inf / NaN."""
    return (x, o, rows, m, eps, w, b, save_mean, save_rstd, bytecode_row, array("i", [0] * 8), array("f", [0.0, 0.0]))


def step(ctx):
    x, o, rows, m, eps, w, b, save_mean, save_rstd, bytecode_row, ctl, ms = ctx
    i = 0
    for r in range(rows):
        ctl[0] = 4 * i
        ctl[1] = m
        if _stats(x, ctl):
            bytecode_row(x, o, i, m, eps, w, b, save_mean, save_rstd, r)
        else:
            s = (ctl[4] << 32) | (ctl[3] & 0xFFFFFFFF)
            q = (ctl[6] << 32) | (ctl[5] & 0xFFFFFFFF)
            u = ctl[2] - 150  # x == X * 2**u
            mean = math.ldexp(s, u) / m
            var = math.ldexp(m * q - s * s, 2 * u) / (m * m)
            rstd = 1.0 / math.sqrt(var + eps)
            ms[0] = mean
            ms[1] = rstd
            _pass(x, ms, o, SUB, m, i, 0, i, 1, 0)
            _pass(o, ms, o, MUL, m, i, 1, i, 1, 0)
            if w is not None:
                _pass(o, w, o, MUL, m, i, 0, i, 1, 1)
            if b is not None:
                _pass(o, b, o, ADD, m, i, 0, i, 1, 1)
            if save_mean is not None:
                save_mean[r] = mean
            if save_rstd is not None:
                save_rstd[r] = rstd
        i += m


def _pass(a, b, o, op, n, ia, ib, io, sa, sb):
    done = binary(a, b, o, op, n, ia, ib, io, sa, sb)
    if done < n:
        tail(a, b, o, op, done, n, ia, ib, io, sa, sb)


@micropython.asm_thumb
def _stats(r0, r1):
    # r0 x, r1 ctl: [0] the row's byte offset [4] n; out: [8] emax [12] [16] sum X
    # (low, high) [20] [24] sum X * X; returns 1 for a row holding inf / NaN
    data(2, 0xE92D, 0x0F00)  # push.w {r8-r11}
    ldr(r2, [r1, 0])
    add(r2, r2, r0)
    ldr(r3, [r1, 4])
    lsl(r3, r3, 2)
    add(r3, r3, r2)
    mov(r5, 1)  # emax (denormals count as exponent 1)
    mov(r0, r2)
    label(EMAX)
    ldr(r4, [r0, 0])
    lsl(r4, r4, 1)
    lsr(r4, r4, 24)
    cmp(r4, 255)
    beq(BAD)
    cmp(r4, r5)
    ble(EMAX_NEXT)
    mov(r5, r4)
    label(EMAX_NEXT)
    add(r0, 4)
    cmp(r0, r3)
    blt(EMAX)
    mov(r4, 0)
    mov(r8, r4)
    mov(r9, r4)
    mov(r10, r4)
    mov(r11, r4)
    label(SUMS)
    ldr(r4, [r2, 0])
    lsl(r6, r4, 9)
    lsr(r6, r6, 9)  # the stored mantissa
    lsl(r0, r4, 1)
    lsr(r0, r0, 24)  # e
    cmp(r0, 0)
    bne(NORMAL)
    mov(r0, 1)
    b(ALIGN)
    label(NORMAL)
    mov(r7, 1)
    lsl(r7, r7, 23)
    orr(r6, r7)
    label(ALIGN)
    sub(r0, r5, r0)  # emax - e
    lsr(r6, r0)  # 32 or more: 0
    cmp(r4, 0)
    bge(POSITIVE)
    neg(r6, r6)
    label(POSITIVE)
    mov(r7, 1)
    data(2, 0xFBC6, 0x8907)  # smlal r8, r9, r6, r7
    data(2, 0xFBC6, 0xAB06)  # smlal r10, r11, r6, r6
    add(r2, 4)
    cmp(r2, r3)
    blt(SUMS)
    str(r5, [r1, 8])
    mov(r4, r8)
    str(r4, [r1, 12])
    mov(r4, r9)
    str(r4, [r1, 16])
    mov(r4, r10)
    str(r4, [r1, 20])
    mov(r4, r11)
    str(r4, [r1, 24])
    mov(r0, 0)
    b(DONE)
    label(BAD)
    mov(r0, 1)
    label(DONE)
    data(2, 0xE8BD, 0x0F00)  # pop.w {r8-r11}

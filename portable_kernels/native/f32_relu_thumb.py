"""Float32 relu on the bits in Arm Thumb assembler (Thumb-1 instructions:
every Arm Thumb port, emitters.HAS_THUMB): f32_clamp_viper.relu's rule, 11
instructions per element against ~30 for the viper loop. A word whose
sign bit is set becomes +0.0 unless its magnitude is 0 (-0.0 stays -0.0,
as torch keeps it) or above inf's bits (NaN passes through). No float
object, no allocation.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
import micropython


@micropython.asm_thumb
def relu(r0, r1, r2):
    # r0 source words, r1 destination words, r2 count
    lsl(r2, r2, 2)
    add(r2, r1, r2)  # the end of the destination
    mov(r3, 0xFF)
    lsl(r3, r3, 24)  # inf's magnitude, shifted left once
    b(TEST)
    label(LOOP)
    ldr(r4, [r0, 0])
    add(r0, 4)
    lsl(r5, r4, 1)  # C: the sign; Z: a zero magnitude
    bcc(KEEP)
    beq(KEEP)
    cmp(r5, r3)
    bhi(KEEP)  # NaN
    mov(r4, 0)
    label(KEEP)
    str(r4, [r1, 0])
    add(r1, 4)
    label(TEST)
    cmp(r1, r2)
    bcc(LOOP)
    mov(r0, 0)

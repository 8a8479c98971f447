"""The code emitters this port has, read once from sys.implementation._mpy
(bits 10..13: MicroPython's MP_NATIVE_ARCH_*; 0 on ports without a native
emitter: WebAssembly, CircuitPython, CPython).

A kernel module with @micropython.viper / native / asm_* code is a
SyntaxError where the emitter is missing, so kernels import such a module
only when the flag here says the port has it, and keep a plain path for the
other ports.
"""

import sys

ARCH = (getattr(sys.implementation, "_mpy", 0) >> 10) & 0xF
# viper and @micropython.native: every port built with a native emitter
HAS_NATIVE = ARCH != 0
# @micropython.asm_thumb: the Arm Thumb ports (armv6 .. armv7emdp)
HAS_THUMB = 3 <= ARCH <= 8
# armv6m (RP2040, Cortex-M0+) has Thumb-1 only: no wide (Thumb-2) instructions
THUMB2 = 5 <= ARCH <= 8


def _cpu_word(addr):
    """A word of the Cortex-M system control space (CPU feature registers), or 0."""
    try:
        import uctypes

        b = uctypes.bytes_at(addr, 4)
        return b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24
    except (ImportError, AttributeError):
        try:
            import machine

            return machine.mem32[addr] & 0xFFFFFFFF
        except (ImportError, AttributeError):
            return 0


# The CPU's own feature registers, read on the device: the arch in _mpy does not
# tell (MicroPython reports a Cortex-M3's Thumb-2 as armv7em). Only on bare-metal
# Thumb-2 ports, where the system control space is always mapped.
_BARE = THUMB2 and sys.platform not in ("linux", "darwin", "win32", "webassembly")
# DSP extension (SMLAD, UXTB16, ...: Cortex-M4 / M7 / M33 with DSP): ID_ISAR3.SIMD_instrs == 3
DSP = _BARE and (_cpu_word(0xE000ED6C) >> 4) & 0xF >= 3
# single-precision FPU instructions (VMUL.F32, VLDR, ...): the firmware is built for
# one (armv7emsp / armv7emdp) and MVFR0 says single precision is there
_MVFR0 = _cpu_word(0xE000EF40) if _BARE and ARCH >= 7 else 0
FPU = (_MVFR0 >> 4) & 0xF >= 2
# and double precision (VFMA.F64, VCVT between float and double: Cortex-M7 with FPv5-D16)
FPU_DP = ARCH == 8 and (_MVFR0 >> 8) & 0xF >= 2
# 64-bit native words (unix x64, aarch64): viper ints hold a 24x24-bit
# mantissa product exactly, which the soft-float fp32 products rely on
WIDE = HAS_NATIVE and sys.maxsize > 0xFFFFFFFF

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
# 64-bit native words (unix x64, aarch64): viper ints hold a 24x24-bit
# mantissa product exactly, which the soft-float fp32 products rely on
WIDE = HAS_NATIVE and sys.maxsize > 0xFFFFFFFF

"""Arm Thumb step of mpy_et_quant::lut (quantized/op_lut.py): each int8
value mapped through the host's 256-byte table, the step itself an
assembler function (native/thumb_steps.py: no bytecode frame, no argument
conversion per call). Imported only where the port has
@micropython.asm_thumb (emitters.HAS_THUMB); Thumb-1 instructions only.
Runs in place from ROMFS. Does not allocate.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.native.thumb_steps import at


def prepare_lut(x, table, out):
    o = at(out)
    ctl = array("i", [at(x), at(table), o, o + out.numel])
    return _lut, (ctl, x.buf, table.buf, out.buf)


@micropython.asm_thumb
def _lut(r0):
    # r0: the context's items; [0] the control array: [0] x [4] table [8] out [12] out's end
    ldr(r0, [r0, 0])
    ldr(r0, [r0, 12])
    ldr(r1, [r0, 0])
    ldr(r2, [r0, 4])
    ldr(r3, [r0, 8])
    ldr(r4, [r0, 12])
    mov(r6, 0x80)
    cmp(r3, r4)
    bge(DONE)
    label(LOOP)
    ldrb(r5, [r1, 0])
    eor(r5, r6)  # table index = signed value + 128
    add(r5, r5, r2)
    ldrb(r5, [r5, 0])
    strb(r5, [r3, 0])
    add(r1, 1)
    add(r3, 1)
    cmp(r3, r4)
    blt(LOOP)
    label(DONE)
    mov(r0, 0)


noalloc.mark(_lut)

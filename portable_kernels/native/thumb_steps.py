"""Steps that are themselves @micropython.asm_thumb functions: no bytecode
frame and no argument conversion per call (an elementwise int8 step on 32
values: ~3,200 instructions through a bytecode wrapper calling a viper
function with four buffers, ~600 for the call of an assembler step).

Method.execute() calls steps[i](ctxs[i]). An asm_thumb function called with
a tuple gets, in r0, the address of the tuple's items (py/objfun.c
convert_obj_for_inline_asm: tuples and lists pass their items array). A
direct step's context is (control, buffers...): items[0] is an
array("i") control block, whose data pointer is word 3 of the array object
(mp_obj_array_t: base, typecode/free, len, items), holding the absolute
addresses of the operands (address() at load) and the constants; the
buffers after it keep the operands alive for as long as the step exists.
Imported only where the port has @micropython.asm_thumb (emitters.HAS_THUMB).
"""

# ruff: noqa: F821 (assembler mnemonics and registers)

import micropython


@micropython.asm_thumb
def address(r0):
    # r0 is already the address of the buffer's first byte (a memoryview's
    # included): returned as an int (allocates only past the small-int range)
    pass


def at(t):
    """The address of tensor t's first element (at load)."""
    return address(t.buf) + t.offset

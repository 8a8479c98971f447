"""Steps that never allocate, and the heap lock that proves it.

A kernel module marks its step functions once, at import:
    noalloc.mark(_step)
A step may be marked only if it allocates nothing on every port: integers
that stay small (within +-2**30 on 32-bit ports), byte copies through views
made at load time, no float arithmetic (floats are heap objects on most
ports), no temporary lists or slices.

When every step of a method is marked, Method.execute() runs it with the
heap locked (micropython.heap_lock). Nothing can then allocate: MicroPython
puts the frames of bytecode functions on the C stack instead of the heap
(py/objfun.c falls back to alloca when m_new_obj_var_maybe fails), so such a
method allocates zero bytes per inference and the garbage collector never
runs in the middle of one. A marked step that does allocate fails loudly
(MpyEtError naming the instruction), never silently.
"""

STEPS = set()


def mark(*steps):
    for s in steps:
        STEPS.add(s)


def all_marked(steps):
    for s in steps:
        if s not in STEPS:
            return False
    return True

"""The bytecode tail of the float32 add / sub / mul steps (util/f32_arith.py and
the native steps it chooses, e.g. native/f32_arith_thumb.py): the elements of a
row from an inf or NaN operand on, so inf/NaN results are torch's. A module of
its own so the native steps reach it without importing util/f32_arith (which
imports them)."""

ADD = 0
SUB = 1
MUL = 2


def tail(a, b, o, op, k, n, ia, ib, io, sa, sb):
    """Elements k.. of a row, in bytecode (an inf/NaN operand)."""
    ia += k * sa
    ib += k * sb
    for i in range(io + k, io + n):
        x = a[ia]
        y = b[ib]
        if op == ADD:
            o[i] = x + y
        elif op == SUB:
            o[i] = x - y
        else:
            o[i] = x * y
        ia += sa
        ib += sb

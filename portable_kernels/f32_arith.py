"""Steps for float32 add / sub / mul through f32_arith_viper on ports with
64-bit native words (emitters.WIDE): bit for bit the bytecode steps'
results, without a float object per element. Elsewhere (and for other
dtypes) `steps` returns None and the kernel keeps its bytecode steps.

At an inf or NaN operand the viper function stops; the rest of that row
runs here in bytecode (`_tail`), so inf/NaN results are torch's.
"""

from mpy_et import dtypes
from portable_kernels import loops
from portable_kernels.emitters import WIDE

if WIDE:
    from array import array

    from portable_kernels.f32_arith_viper import binary

ADD = 0
SUB = 1
MUL = 2


def steps(a, b, out, op, plan):
    """(step, ctx) for out = a OP b (plan: loops.broadcast's), or None."""
    if not WIDE or out.numel == 0:
        return None
    for t in (a, b, out):
        if t.dtype != dtypes.FLOAT:
            return None
    if plan is None:
        ctl = array("i", (op, out.numel, 0, 0, 0, 1, 1))
        return _flat, (a.data, b.data, out.data, ctl)
    plan, n, sa, sb = plan
    ctl = array("i", (op, n, 0, 0, 0, sa, sb))
    return loops.run_rows, loops.rows_ctx(_row, (a.data, b.data, out.data, ctl), plan)


def _flat(ctx):
    a, b, o, ctl = ctx
    done = binary(a, b, o, ctl)
    if done < ctl[1]:
        _tail(a, b, o, ctl, done)


def _row(rctx, ia, ib, io):
    a, b, o, ctl = rctx
    ctl[2] = ia
    ctl[3] = ib
    ctl[4] = io
    done = binary(a, b, o, ctl)
    if done < ctl[1]:
        _tail(a, b, o, ctl, done)


def _tail(a, b, o, ctl, k):
    """Elements k.. of the row in ctl, in bytecode (an inf/NaN operand)."""
    op, n, ia, ib, io, sa, sb = ctl
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

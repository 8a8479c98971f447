"""Steps for float32 add / sub / mul through f32_arith_viper on ports with
64-bit native words (emitters.WIDE), f32_arith_fpu's FPU instructions
where there is a single-precision FPU (emitters.FPU: Cortex-M4F / M7), or
f32_arith_thumb's Thumb-2 soft-float on the other Thumb-2 boards
(Cortex-M3): bit for bit the bytecode steps' results, without a float
object per element. Elsewhere (and for other dtypes) `steps` returns None
and the kernel keeps its bytecode steps.

At an inf or NaN operand the soft-float functions stop; the rest of that row
runs here in bytecode (`tail`), so inf/NaN results are torch's.
"""

from array import array

from mpy_et import dtypes
from mpy_et.tensor import addressable
from portable_kernels.util import loops
from portable_kernels.util.emitters import FPU, THUMB2, WIDE
from portable_kernels.util.f32_tail import ADD, MUL, SUB, tail  # noqa: F401  (ADD, MUL, SUB: the kernels' op codes)

binary = None  # the native binary(), once a step uses it
SCALAR = array("f", [0.0])  # a .Scalar step's operand, stored before each call: no array per instruction
# Below this many elements the bytecode step is as fast and its context smaller
# (a 1,000-instruction chain of one-element ops must still load in 256 KB).
_MIN_ELEMENTS = 8


def steps(a, b, out, op, plan):
    """(step, ctx) for out = a OP b (plan: loops.broadcast's), or None."""
    if not (WIDE or FPU or THUMB2) or out.numel < _MIN_ELEMENTS or not addressable(a, b, out):
        return None
    for t in (a, b, out):
        if t.dtype != dtypes.FLOAT:
            return None
    global binary
    binary = native()
    flat, _, row = _steps()
    if plan is None:
        if flat is None:  # f32_arith_fpu: an assembler step over the whole tensors
            from portable_kernels.native.f32_arith_fpu import prepare

            return prepare(a, b, out, op)
        return flat, (a.data, b.data, out.data, op, out.numel)
    plan, n, sa, sb = plan
    return loops.run_rows, loops.rows_ctx(row, (a.data, b.data, out.data, op, n, sa, sb), plan)


def scalar_steps(a, c, out, op):
    """(step, ctx) for out = a OP c (c a Python number fixed at load time,
    rounded to float32 as torch does for a float32 tensor: stored into
    SCALAR by the step), or None."""
    if not (WIDE or FPU or THUMB2) or out.numel < _MIN_ELEMENTS or not addressable(a, out):
        return None
    if a.dtype != dtypes.FLOAT or out.dtype != dtypes.FLOAT or not isinstance(c, (int, float)) or isinstance(c, bool):
        return None
    global binary
    binary = native()
    return _steps()[1], (a.data, float(c), out.data, op, out.numel)


def native():
    """This port's binary() (imported when first needed: load time); None
    where it has none."""
    if WIDE:
        from portable_kernels.native.f32_arith_viper import binary
    elif FPU:
        from portable_kernels.native.f32_arith_fpu import binary
    elif THUMB2:
        from portable_kernels.native.f32_arith_thumb import binary
    else:
        return None
    return binary


def _steps():
    """(whole-tensor step, scalar step, row step): on Thumb-2 boards
    f32_arith_fpu's or f32_arith_thumb's own (frames small enough for
    MicroPython's C stack: a larger one is allocated on the heap per call;
    f32_arith_fpu's whole-tensor step is built by its prepare(): None here),
    else the ones here."""
    if WIDE or not THUMB2:
        return _flat, _scalar, _row
    if FPU:
        from portable_kernels.native import f32_arith_fpu as m

        return None, m.scalar, m.row
    else:
        from portable_kernels.native import f32_arith_thumb as m
    return m.flat, m.scalar, m.row


def _flat(ctx):
    a, b, o, op, n = ctx
    done = binary(a, b, o, op, n, 0, 0, 0, 1, 1)
    if done < n:
        tail(a, b, o, op, done, n, 0, 0, 0, 1, 1)


def _scalar(ctx):
    a, c, o, op, n = ctx
    SCALAR[0] = c
    done = binary(a, SCALAR, o, op, n, 0, 0, 0, 1, 0)
    if done < n:
        tail(a, SCALAR, o, op, done, n, 0, 0, 0, 1, 0)


def _row(rctx, ia, ib, io):
    a, b, o, op, n, sa, sb = rctx
    done = binary(a, b, o, op, n, ia, ib, io, sa, sb)
    if done < n:
        tail(a, b, o, op, done, n, ia, ib, io, sa, sb)

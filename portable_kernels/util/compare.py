"""Load-time part shared by the comparison, logical and bitwise kernels:
argument checks, the broadcast plan and the step choice. Each op module
holds its own loops (no per-element calls)."""

from mpy_et import dtypes
from mpy_et.tensor import addressable
from portable_kernels.util import checks, loops
from portable_kernels.util.emitters import HAS_THUMB

_WORDS = (dtypes.FLOAT, dtypes.INT)
_BYTES = (dtypes.BOOL, dtypes.BYTE)


def _inputs(tensors, what, allowed):
    for i in range(len(tensors)):
        checks.is_tensor(tensors[i], "%s input %d" % (what, i))
        checks.dtype_in(tensors[i], allowed, "%s input %d" % (what, i))


def binary_steps(a, b, out, what, same, row):
    """Steps for out[i] = f(a[i], b[i]) with broadcasting: `same` walks one
    flat index (no broadcasting), `row` one row of a loops.rows_plan."""
    plan = loops.broadcast(a, b, out, what)
    if plan is None:
        return same, (a.data, b.data, out.data, out.numel)
    plan, n, sa, sb = plan
    return loops.run_rows, loops.rows_ctx(row, (a.data, b.data, out.data, n, sa, sb), plan)


def compare_tensor(a, b, out, what, same, row):
    """A comparison (or logical op) of two tensors of any dtype into a bool out."""
    _inputs((a, b), what, checks.ANY)
    checks.is_tensor(out, what + " out")
    plan = binary_steps(a, b, out, what, same, row)
    checks.bool_out(out, out.sizes, what)
    return plan


def compare_scalar(a, other, out, what, step, equal=None):
    """A comparison of a tensor with a number into a bool out. The number is
    rounded to the compute type first, as torch does (float32(0.1) == 0.1f).
    equal: True for ==, False for !=, which on Arm compare float32 / int32
    words in native/bool_thumb (None: the bytecode step)."""
    _inputs((a,), what, checks.ANY)
    checks.number(other, what + " other")
    checks.bool_out(out, a.sizes, what)
    ct = checks.result_dtype((a,), (other,))
    c = checks.scalar_as(other, ct)
    if equal is not None and ct == a.dtype and _native(a, out, _WORDS):
        from portable_kernels.native import bool_thumb  # imported when first needed (load time)

        if a.dtype == dtypes.FLOAT:
            return bool_thumb.compare(a, out, None, c, equal)
        if -0x80000000 <= c <= 0x7FFFFFFF:
            return bool_thumb.compare(a, out, -1, c, equal)
        return bool_thumb.compare(a, out, 0, 1, equal)  # no int32 equals c
    return step, (a.data, out.data, out.numel, c)


def _native(x, out, kinds):
    """Whether bool_thumb's steps serve x (of a dtype in kinds) into out."""
    return HAS_THUMB and x.dtype in kinds and out.numel >= 8 and addressable(x, out)


def unary_bool(x, out, what, step, zero=False):
    """A logical op of one tensor of any dtype into a bool out; zero: the op
    is x == 0 (logical_not), which on Arm runs in native/bool_thumb for
    bool, uint8, int32 and float32 x."""
    _inputs((x,), what, checks.ANY)
    checks.bool_out(out, x.sizes, what)
    if zero and _native(x, out, _WORDS + _BYTES):
        from portable_kernels.native import bool_thumb  # imported when first needed (load time)

        if x.dtype in _BYTES:
            return bool_thumb.logical_not(x, out)
        return bool_thumb.compare(x, out, 0x7FFFFFFF if x.dtype == dtypes.FLOAT else -1, 0, True)
    return step, (x.data, out.data, out.numel)


def bitwise_dtype(tensors, scalars, out, what):
    """Compute type of a bitwise op: bool or integers only."""
    r = checks.arith_dtype(tensors, scalars, out, what, True)
    if r in dtypes.FLOATING:
        checks.fail(
            "%s: defined on bool and integer tensors only, got %s" % (what, ", ".join(checks.shape_str(t) for t in tensors)),
            checks.INVALID_TYPE,
        )
    return r

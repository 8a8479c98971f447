"""Load-time part shared by the comparison, logical and bitwise kernels:
argument checks, the broadcast plan and the step choice. Each op module
holds its own loops (no per-element calls)."""

from mpy_et import dtypes
from portable_kernels.util import checks, loops


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


def compare_scalar(a, other, out, what, step):
    """A comparison of a tensor with a number into a bool out. The number is
    rounded to the compute type first, as torch does (float32(0.1) == 0.1f)."""
    _inputs((a,), what, checks.ANY)
    checks.number(other, what + " other")
    checks.bool_out(out, a.sizes, what)
    c = checks.scalar_as(other, checks.result_dtype((a,), (other,)))
    return step, (a.data, out.data, out.numel, c)


def unary_bool(x, out, what, step):
    """A logical op of one tensor of any dtype into a bool out."""
    _inputs((x,), what, checks.ANY)
    checks.bool_out(out, x.sizes, what)
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

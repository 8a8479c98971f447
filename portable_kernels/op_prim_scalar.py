"""executorch_prim's integer scalar ops, `<op>.Scalar(a, b, out)`: out = a op b
on Int values the method writes as it runs (mpy_et/loops.py's Cells: a map
loop's counter and its condition). A constant operand gets a cell of its
own at load; the steps read and write the cells (small ints: they do not
allocate). A comparison writes 1 or 0 (a Bool value).

ExecuTorch's emitter writes `(k, 1, k)` for k += 1: an in-place call whose
return slot is its first argument, so Method passes two arguments and the
result goes to a (out=None)."""

from array import array

from mpy_et.noalloc import mark
from portable_kernels.util import checks


def _cell(x, what):
    v = getattr(x, "v", None)  # an mpy_et.loops.Cell
    if v is not None:
        return v
    if isinstance(x, bool) or not isinstance(x, int):
        checks.fail("%s: operand %r is not an Int" % (what, x))
    return array("i", (x,))


def _ctx(a, b, out, what):
    out = a if out is None else out
    if getattr(out, "v", None) is None:
        checks.fail("%s: its result is not a value the method writes as it runs" % what)
    return (out.v, _cell(a, what), _cell(b, what))


def _add(ctx):
    o, a, b = ctx
    o[0] = a[0] + b[0]


def _sub(ctx):
    o, a, b = ctx
    o[0] = a[0] - b[0]


def _mul(ctx):
    o, a, b = ctx
    o[0] = a[0] * b[0]


def _eq(ctx):
    o, a, b = ctx
    o[0] = 1 if a[0] == b[0] else 0


def _gt(ctx):
    o, a, b = ctx
    o[0] = 1 if a[0] > b[0] else 0


def _lt(ctx):
    o, a, b = ctx
    o[0] = 1 if a[0] < b[0] else 0


def _ge(ctx):
    o, a, b = ctx
    o[0] = 1 if a[0] >= b[0] else 0


def _le(ctx):
    o, a, b = ctx
    o[0] = 1 if a[0] <= b[0] else 0


def add_scalar(a, b, out=None):
    return _add, _ctx(a, b, out, "executorch_prim::add.Scalar")


def sub_scalar(a, b, out=None):
    return _sub, _ctx(a, b, out, "executorch_prim::sub.Scalar")


def mul_scalar(a, b, out=None):
    return _mul, _ctx(a, b, out, "executorch_prim::mul.Scalar")


def eq_scalar(a, b, out=None):
    return _eq, _ctx(a, b, out, "executorch_prim::eq.Scalar")


def gt_scalar(a, b, out=None):
    return _gt, _ctx(a, b, out, "executorch_prim::gt.Scalar")


def lt_scalar(a, b, out=None):
    return _lt, _ctx(a, b, out, "executorch_prim::lt.Scalar")


def ge_scalar(a, b, out=None):
    return _ge, _ctx(a, b, out, "executorch_prim::ge.Scalar")


def le_scalar(a, b, out=None):
    return _le, _ctx(a, b, out, "executorch_prim::le.Scalar")


for _f in (_add, _sub, _mul, _eq, _gt, _lt, _ge, _le):
    mark(_f)

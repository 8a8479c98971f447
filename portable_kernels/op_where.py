"""aten::where.self_out: out = self where condition else other, the three
broadcast together. Without broadcasting one pass; otherwise two walks over
out: other everywhere, then self where the condition holds. Values of one
raw unit (strided.units_of: float32 and int32 on 64-bit ports) move as
integers: nothing is boxed. Allocation: none for bool/int32 values and raw
float32; boxed floats for other float values. On Arm, 32-bit values under a
condition of out's shape, or of it with the last dim 1 (the attention's mask
of fully masked rows), move in native/bool_thumb.where."""

from mpy_et import dtypes
from mpy_et.tensor import addressable
from portable_kernels.util import checks, loops, strided
from portable_kernels.util.emitters import HAS_THUMB


def where_self_out(cond, a, b, out):
    what = "where.self"
    checks.is_tensor(cond, what + " condition")
    checks.dtype_in(cond, (dtypes.BOOL, dtypes.BYTE), what + " condition")
    checks.arith_dtype((a, b), (), out, what, True)
    shape = loops.shape_of((cond, a, b), what)
    checks.out_shape(out, shape, what)
    if out.numel == 0:
        return None
    run = _run(cond, a, b, out)
    if run:
        from portable_kernels.native import bool_thumb  # imported when first needed (load time)

        return bool_thumb.where(cond, a, b, out, run)
    o, ad, bd = out.data, a.data, b.data
    if a.dtype == b.dtype == out.dtype and a.dtype in dtypes.FLOATING and strided.units_of(a.dtype) == 1:
        o, ad, bd = strided.raw_view(out)[0], strided.raw_view(a)[0], strided.raw_view(b)[0]
    if tuple(cond.sizes) == tuple(a.sizes) == tuple(b.sizes):
        step, ctx = _where, (cond.data, ad, bd, o, out.numel)
    else:
        fill = loops.rows_ctx_to(_fill_row, (bd, o), shape, b, b)
        pick = loops.rows_ctx_to(_pick_row, (cond.data, ad, o), shape, cond, a)
        step, ctx = _where_broadcast, (fill, pick)
    return step, ctx


def _run(cond, a, b, out):
    """On Arm, for 32-bit a, b and out of one shape with cond of that shape or
    of it with the last dim 1: how many elements each condition covers
    (native/bool_thumb.where); else 0."""
    if not HAS_THUMB or out.numel < 8 or dtypes.itemsize(out.dtype) != 4 or not a.dtype == b.dtype == out.dtype:
        return 0
    if not tuple(a.sizes) == tuple(b.sizes) == tuple(out.sizes) or not addressable(cond, a, b, out):
        return 0
    for t in (cond, a, b, out):
        if t.dim_order is not None:
            return 0
    cs, os_ = tuple(cond.sizes), tuple(out.sizes)
    if cs == os_:
        return 1
    if len(cs) == len(os_) and cs[:-1] == os_[:-1] and cs[-1] == 1:
        return os_[-1]
    return 0


def _where(ctx):
    c, a, b, o, n = ctx
    for i in range(n):
        o[i] = a[i] if c[i] else b[i]


def _where_broadcast(ctx):
    fill, pick = ctx
    loops.run_rows(fill)
    loops.run_rows(pick)


def _fill_row(rctx, ib, _, io):
    b, o, n, sb, _ = rctx
    for k in range(io, io + n):
        o[k] = b[ib]
        ib += sb


def _pick_row(rctx, ic, ia, io):
    c, a, o, n, sc, sa = rctx
    if sc == 0:  # one condition for the row (a mask broadcast along it)
        if c[ic]:
            for k in range(io, io + n):
                o[k] = a[ia]
                ia += sa
        return
    for k in range(io, io + n):
        if c[ic]:
            o[k] = a[ia]
        ic += sc
        ia += sa

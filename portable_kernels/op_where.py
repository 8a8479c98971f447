"""aten::where.self_out: out = self where condition else other, the three
broadcast together. Without broadcasting one pass; otherwise two walks over
out: other everywhere, then self where the condition holds. Values of one
raw unit (strided.units_of: float32 and int32 on 64-bit ports) move as
integers: nothing is boxed. Allocation: none for bool/int32 values and raw
float32; boxed floats for other float values."""

from mpy_et import dtypes
from portable_kernels.util import checks, loops, strided


def where_self_out(cond, a, b, out):
    what = "where.self"
    checks.is_tensor(cond, what + " condition")
    checks.dtype_in(cond, (dtypes.BOOL, dtypes.BYTE), what + " condition")
    checks.arith_dtype((a, b), (), out, what, True)
    shape = loops.shape_of((cond, a, b), what)
    checks.out_shape(out, shape, what)
    if out.numel == 0:
        return None
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

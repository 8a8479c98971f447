"""Loops shared by kernels: broadcasting, strided iteration, raw copies.
(The float products' loops are in util/float_loops.py: an int8 program that
only moves bytes does not import them, nor their native copies.)

Load-time helpers build plans (plain tuples and lists of ints); `run_rows`
is a step that walks a plan without allocating.
"""

from mpy_et import dtypes, noalloc
from mpy_et.tensor import typed_view
from portable_kernels.util import checks
from portable_kernels.util.emitters import HAS_NATIVE, HAS_THUMB


def numel(sizes):
    n = 1
    for s in sizes:
        n *= s
    return n


def contiguous_strides(sizes):
    st = [1] * len(sizes)
    s = 1
    for d in range(len(sizes) - 1, -1, -1):
        st[d] = s
        s *= sizes[d]
    return st


def broadcast_shape(a, b, what):
    """numpy broadcasting of two shapes (tuples of ints)."""
    n = max(len(a), len(b))
    out = []
    for i in range(n):
        ia, ib = i - n + len(a), i - n + len(b)
        da = a[ia] if ia >= 0 else 1
        db = b[ib] if ib >= 0 else 1
        if da != db and da != 1 and db != 1:
            checks.fail("%s: shapes %s and %s do not broadcast (dim %d: %d vs %d)" % (what, list(a), list(b), i - n, da, db))
        out.append(db if da == 1 else da)
    return tuple(out)


def operand_strides(sizes, out_sizes):
    """Element strides of a contiguous tensor broadcast to out_sizes (0 where broadcast)."""
    st = contiguous_strides(sizes)
    k = len(out_sizes) - len(sizes)
    r = [0] * len(out_sizes)
    for i in range(len(sizes)):
        if sizes[i] != 1:
            r[k + i] = st[i]
    return r


def coalesce(sizes, strides_list):
    """Drop size-1 dims and merge neighbours that are contiguous for every operand.

    Returns (sizes, [strides per operand]), outermost dim first.
    """
    dims = []
    per = [[] for _ in strides_list]
    for d in range(len(sizes)):
        n = sizes[d]
        if n == 1:
            continue
        if dims and all(per[k][-1] == strides_list[k][d] * n for k in range(len(per))):
            dims[-1] *= n
            for k in range(len(per)):
                per[k][-1] = strides_list[k][d]
        else:
            dims.append(n)
            for k in range(len(per)):
                per[k].append(strides_list[k][d])
    return dims, per


def rows_plan(sizes, sa, sb):
    """Plan a walk over a contiguous output of `sizes`, reading operands a and
    b with element strides sa and sb.

    Returns (plan, inner, isa, isb): rows of `inner` elements, stepping a by
    isa and b by isb inside a row; `plan` feeds rows_ctx.
    """
    dims, (ca, cb) = coalesce(sizes, (sa, sb))
    if numel(sizes) == 0:
        return (0, [], [], [], [], [], [], 0, 0), 0, 0, 0
    if not dims:  # a single element: read both operands at index 0
        dims, ca, cb = [1], [1], [1]
    outer = dims[:-1]
    nd = len(outer)
    back_a = [ca[d] * (outer[d] - 1) for d in range(nd)]
    back_b = [cb[d] * (outer[d] - 1) for d in range(nd)]
    plan = (nd, outer, ca[:-1], cb[:-1], back_a, back_b, [0] * nd, numel(outer), dims[-1])
    return plan, dims[-1], ca[-1], cb[-1]


def rows_ctx(row, rctx, plan):
    """ctx for run_rows: call row(rctx, ia, ib, io) for every row of plan."""
    return (row, rctx) + plan


def run_rows(ctx):
    """Step: an odometer over the outer dims of a plan; the row function does
    the inner loop. Does not allocate (the index list is preallocated)."""
    row, rctx, nd, sizes, sa, sb, back_a, back_b, idx, nrows, inner = ctx
    for d in range(nd):
        idx[d] = 0
    ia = 0
    ib = 0
    io = 0
    for _ in range(nrows):
        row(rctx, ia, ib, io)
        io += inner
        d = nd - 1
        while d >= 0:
            c = idx[d] + 1
            if c < sizes[d]:
                idx[d] = c
                ia += sa[d]
                ib += sb[d]
                break
            idx[d] = 0
            ia -= back_a[d]
            ib -= back_b[d]
            d -= 1


def broadcast(a, b, out, what):
    """Check that a and b broadcast to out's shape.

    Returns None when no broadcasting is needed (a, b and out walk the same
    flat index), else (plan, inner, isa, isb) from rows_plan.
    """
    shape = broadcast_shape(tuple(a.sizes), tuple(b.sizes), what)
    checks.out_shape(out, shape, what)
    plan, inner, isa, isb = rows_plan(shape, operand_strides(a.sizes, shape), operand_strides(b.sizes, shape))
    if plan[0] == 0 and isa == 1 and isb == 1:
        return None
    if plan[7] == 0:  # empty result: nothing to walk
        return None
    return plan, inner, isa, isb


def shape_of(tensors, what):
    """The broadcast shape of several tensors (None entries skipped)."""
    shape = ()
    for t in tensors:
        if t is not None:
            shape = broadcast_shape(shape, tuple(t.sizes), what)
    return shape


def rows_ctx_to(row, rctx, shape, x, y):
    """run_rows ctx walking a contiguous out of `shape` with x and y
    broadcast to it: row(rctx + (n, sx, sy), ix, iy, io) per row."""
    plan, n, sx, sy = rows_plan(shape, operand_strides(x.sizes, shape), operand_strides(y.sizes, shape))
    return rows_ctx(row, rctx + (n, sx, sy), plan)


def _store_wraps():
    """True where storing an int past int32 into an int32 view keeps its low
    32 bits (MicroPython's memoryview/uctypes stores). CPython and
    CircuitPython raise instead. Probed once, at import."""
    v = typed_view(bytearray(4), 0, 1, dtypes.INT)
    try:
        v[0] = 0x80000005
    except Exception:  # ValueError, OverflowError, struct.error: whatever the view raises
        return False
    return v[0] == -0x7FFFFFFB


STORE_WRAPS = _store_wraps()


class Wrap:
    """An out view whose stores wrap an integer to `dtype`'s width first
    (int32 overflow gives what torch gives), for ports whose own stores raise
    instead (see int_steps). One call per element; a value already in range
    is stored as is, without allocating (the range test against the int32
    limits, which are long ints on 32-bit ports, compares in place)."""

    def __init__(self, view, dtype):
        bits = 8 * dtypes.itemsize(dtype)
        self.view = view
        self.low = 0 if dtype == dtypes.BYTE else -(1 << (bits - 1))
        self.high = self.low + (1 << bits) - 1
        self.mask = (1 << bits) - 1

    def __getitem__(self, i):
        return self.view[i]

    def __setitem__(self, i, v):
        if self.low <= v <= self.high:
            self.view[i] = v
        else:
            self.view[i] = ((v - self.low) & self.mask) + self.low


def int_steps(out, compute, step, ctx):
    """(step, ctx) of an elementwise kernel writing into out, with integer
    overflow wrapping to the compute type as in torch.

    ctx holds out.data (at its top level or in nested tuples, such as
    rows_ctx's row context). Floating results, and integer results on ports
    whose stores wrap (MicroPython), keep (step, ctx): no cost, nothing
    allocated. Where a store raises on overflow instead (CPython,
    CircuitPython), or out has another type than the compute type (int32
    math into int64), out.data is replaced by a Wrap view: a method call per
    element on those integer paths only. (Not a rerun after a failed store:
    the planner runs elementwise ops in place, over their inputs.) Python
    ints past the small-int range (+-2**30 on 32-bit ports) allocate.
    """
    if compute in dtypes.FLOATING or out.numel == 0 or (STORE_WRAPS and out.dtype == compute):
        return step, ctx  # (a small frame: a larger one is allocated on the heap per call)
    return step, _swap(ctx, out.data, Wrap(out.data, compute))


def _swap(ctx, old, new):
    """ctx with every `old` (by identity, in nested tuples too) replaced by `new`."""
    return tuple(new if v is old else (_swap(v, old, new) if isinstance(v, tuple) else v) for v in ctx)


# -- raw copies ---------------------------------------------------------------


def copy_view(t):
    """(view, units): element access for copying t's values without
    allocating. int64 is copied as two int32 halves (int64 reads allocate)."""
    if t.dtype == dtypes.LONG:
        if t.numel == 0:
            return (), 2
        return typed_view(t.buf, t.offset, 2 * t.numel, dtypes.INT), 2
    return t.data, 1


def copy_row(rctx, ia, ib, io):
    """Row of a strided gather: out[io + k] = x[ia + k * step]."""
    x, o, n, step = rctx
    for k in range(io, io + n):
        o[k] = x[ia]
        ia += step


def copy_bytes(ctx):
    """Step: copy whole byte ranges (memoryviews made at load time). Does not allocate."""
    dst, src, n = ctx
    for i in range(n):
        dst[i][:] = src[i]


def copy_one(ctx):
    """Step: copy one byte range (two memoryviews made at load time). Does not allocate."""
    ctx[0][:] = ctx[1]


noalloc.mark(copy_one)


def copy_all(x, out):
    """(step, ctx) copying all of x's bytes into out (same nbytes), or None
    when there is nothing to copy."""
    if out.nbytes == 0:
        return None
    return copy_range(x, 0, out, out.nbytes)


def copy_range(x, a, out, nb):
    """(step, ctx) copying nb bytes of x, from its byte a, to the start of out.
    On Arm the step is an assembler function (native/copy_thumb.py)."""
    if HAS_THUMB:
        from portable_kernels.native import copy_thumb

        return copy_thumb.prepare(out.buf, out.offset, x.buf, x.offset + a, nb)
    return copy_one, (out.buffer[0:nb], x.buffer[a : a + nb])


if HAS_NATIVE:  # the same function compiled by the native emitter (host_tools/codegen/native_variants.py)
    from portable_kernels.util.loops_native import copy_row  # noqa: E402, F401, F811


noalloc.mark(copy_bytes)

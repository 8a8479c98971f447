"""aten::mm.out, and the checks and steps shared with bmm and addmm. Float only.

A single row is summed into a list of Python floats by float_loops.accumulate
(imported with the first bytecode step built: float_loops() below);
more rows go in blocks of up to _BLOCK_ELEMENTS sums through
float_loops.accumulate_rows, which boxes each element of the right operand once
per block rather than once per row (the same sums, bit for bit). The lists
are shared scratch (portable_kernels/util/scratch.py). Allocation in the step:
boxed floats only.

Where the port has a native emitter, float32 products run in integer
soft-float, no float objects, no allocation: f32_mm_viper with 64-bit words
(emitters.WIDE), f32_mm_fpu with a double-precision FPU (Cortex-M7; FPU
instructions, not soft-float), f32_mm_thumb on other Thumb-2 boards (SMULL),
f32_mm_viper32 on other 32-bit ports. The steps above stay as their fallback for operands
holding inf or NaN, and run everywhere else (WebAssembly, CircuitPython).
"""

from mpy_et import dtypes
from mpy_et.port import const
from mpy_et.tensor import addressable
from portable_kernels.util import checks, scratch
from portable_kernels.util.emitters import FPU_DP, HAS_NATIVE, THUMB2, WIDE

if HAS_NATIVE:
    from array import array
if WIDE:
    from portable_kernels.native.f32_mm_viper import ROW_WORDS
    from portable_kernels.native.f32_mm_viper import mm as viper_mm
elif FPU_DP:  # a double-precision FPU (Cortex-M7): the same arguments
    from portable_kernels.native.f32_mm_fpu import mm as viper_mm
    from portable_kernels.native.f32_mm_fpu import run as thumb_run
elif THUMB2:  # 32-bit words with SMULL (Cortex-M3/M4): the same arguments
    from portable_kernels.native.f32_mm_thumb import mm as viper_mm
    from portable_kernels.native.f32_mm_thumb import run as thumb_run
elif HAS_NATIVE:  # other 32-bit ports (armv6m, Xtensa, RISC-V): 12-bit mantissa halves, the same arguments
    from portable_kernels.native.f32_mm_viper32 import mm as viper_mm

# 32-bit ports decode each row of a into scratch (2 words per term): rows
# longer than this stay on the bytecode step, so that scratch stays small
_NARROW_ROWS = const(1024)

_FLOATS = (dtypes.FLOAT, dtypes.DOUBLE)
_BLOCK_ELEMENTS = const(1024)


def mm_out(a, b, out):
    m, k, n = check_mm(a, b, out, "mm")
    return mm_step(a, b, out, 1, m, k, n)


def row_block(m, n):
    """Rows per accumulate_rows block for an (m, n) result: blocks of about
    _BLOCK_ELEMENTS sums, of equal size; 0 where one row at a time is best
    (a single row, or nothing to sum into)."""
    if m < 2 or n == 0:
        return 0
    most = max(1, _BLOCK_ELEMENTS // n)
    blocks = (m + most - 1) // most
    return (m + blocks - 1) // blocks


def mm_step(a, b, out, batches, m, k, n):
    """(step, ctx) for `batches` products of (m, k) @ (k, n) (mm and bmm)."""
    return viper_step(a, b, out, None, (batches, m, k, n, k * n, 0, 0, 0), _mm_bytecode, (a.data, b.data, out.data, batches, m, k, n))


def float_loops():
    """The bytecode products' loops (util/float_loops.py, their native copies
    where the port has the emitter) as this module's globals, imported with
    the first bytecode step built (at load, or at the first inf / NaN): where
    the soft-float or FPU products take every product they stay out of RAM
    (about 3 KB on a Cortex-M3)."""
    global accumulate, accumulate_rows, release
    from portable_kernels.util.float_loops import accumulate, accumulate_rows, release


def _mm_bytecode(a, b, o, batches, m, k, n):
    """(step, ctx) of the bytecode product of the data views a, b into o."""
    float_loops()
    rows = row_block(m, n)
    if rows:
        return _mm_rows, (a, b, o, batches, m, k, n, scratch.floats(rows * n, "mm acc"), scratch.floats(4 * n, "mm b rows"), rows)
    return _mm, (a, b, o, batches, m, k, n, scratch.floats(n, "mm acc"))


def viper_step(a, b, out, bias, ctl, build, args):
    """The f32_mm_viper step for a float32 product where the port has it
    (ctl: the first 8 of f32_mm_viper.CTL_WORDS); build(*args) -> the
    bytecode (step, ctx), its fallback for operands holding inf or NaN, is
    called only then (its shared float lists, a few KB in a transformer,
    are not made at load); build(*args) itself elsewhere."""
    k = ctl[2]
    if not HAS_NATIVE or out.dtype != dtypes.FLOAT or not 0 < k < 0x4000 or 0 in ctl[:4] or not addressable(a, b, out, bias):
        return build(*args)
    if FPU_DP and not WIDE:  # the FPU's product never refuses an operand: its assembler step, no fallback
        from portable_kernels.native.f32_mm_fpu import prepare

        return prepare(a, b, out, bias, ctl)
    if WIDE:
        as_read = k > ROW_WORDS  # longer rows are decoded as read: scratch that does not grow with k
    elif k > _NARROW_ROWS:
        return build(*args)
    else:
        as_read = False
    rows = 1 if as_read else k
    words = array("i", ctl + (int(as_read),))
    head = (scratch.words(rows, "mm mantissas"), scratch.words(rows, "mm exponents"), a.data, b.data, out.data)
    return (_thumb if THUMB2 and not WIDE else _viper), head + (words if bias is None else bias.data, words, [build, args])


def _built(step, ctx):
    return step, ctx


def row_means(x, out, rows, n, divisor, step, ctx):
    """out[r] = sum(x[r * n + j], j < n) / divisor for x's contiguous float32
    rows, as a product: x [rows, n] by a column of 1 / divisor (a global
    average pool, a mean over the last dims) in the soft-float or FPU product
    where the port has one, with (step, ctx) as its fallback; (step, ctx)
    itself elsewhere. The result is the exact sum of x * (1 / divisor) rounded
    once (the FPU: its float64 running sum)."""
    from mpy_et.tensor import Tensor

    if not HAS_NATIVE or x.dtype != dtypes.FLOAT or out.dtype != dtypes.FLOAT:
        return step, ctx
    inv = Tensor(dtypes.FLOAT, (n, 1))
    inv.bind(bytearray(4 * n), 0)
    f = 1.0 / divisor
    for i in range(n):
        inv.data[i] = f
    return viper_step(x, inv, out, None, (1, rows, n, 1, n, 0, 0, 0), _built, (step, ctx))


def _viper(ctx):
    xm, xe, a, b, o, bias, ctl, lazy = ctx
    if viper_mm(xm, xm, 0, xe, a, b, o, bias, ctl):
        _fallback(lazy)


def _thumb(ctx):
    # Thumb-2 boards: one argument and no locals (a MicroPython frame of more
    # than 11 words is allocated on the heap per call; _viper's would be)
    if thumb_run(ctx):
        _fallback(ctx[7])


def _fallback(lazy):
    if lazy[0] is not None:  # inf or NaN: the bytecode step, built on first use, keeps torch's results
        lazy[1] = lazy[0](*lazy[1])
        lazy[0] = None
    step, ctx = lazy[1]
    step(ctx)


def check_mm(a, b, out, what, batched=False):
    """Check a @ b -> out (2-D, or 3-D with a batch dim); return (m, k, n)."""
    nd = 3 if batched else 2
    for t, name in ((a, "self"), (b, "mat2"), (out, "out")):
        checks.is_tensor(t, "%s %s" % (what, name))
        checks.dtype_in(t, _FLOATS, "%s %s" % (what, name))
        checks.dim_count(t, nd, "%s %s" % (what, name))
    checks.same_dtype(a, b, out)
    if a.sizes[-1] != b.sizes[-2] or (batched and a.sizes[0] != b.sizes[0]):
        checks.fail("%s: shapes %s and %s cannot be multiplied" % (what, checks.shape_str(a), checks.shape_str(b)))
    checks.out_shape(out, tuple(a.sizes[:-1]) + (b.sizes[-1],), what)
    return a.sizes[-2], a.sizes[-1], b.sizes[-1]


def _mm(ctx):
    """Also bmm's step: `batches` products of (m, k) @ (k, n)."""
    a, b, o, batches, m, k, n, acc = ctx
    ai = 0
    bi = 0
    oi = 0
    for _ in range(batches):
        for _ in range(m):
            for j in range(n):
                acc[j] = 0.0
            accumulate(a, ai, b, bi, k, n, acc)
            ai += k
            for j in range(n):
                o[oi] = acc[j]
                oi += 1
        bi += k * n
    release(acc)


def _mm_rows(ctx):
    """_mm over blocks of `block` rows (float_loops.accumulate_rows)."""
    a, b, o, batches, m, k, n, acc, bs, block = ctx
    ai = 0
    bi = 0
    oi = 0
    for _ in range(batches):
        i = 0
        while i < m:
            rows = m - i if m - i < block else block
            cells = rows * n
            for j in range(cells):
                acc[j] = 0.0
            accumulate_rows(a, ai, rows, b, bi, k, n, acc, bs)
            ai += rows * k
            for j in range(cells):
                o[oi] = acc[j]
                oi += 1
            i += rows
        bi += k * n
    release(acc)
    release(bs)

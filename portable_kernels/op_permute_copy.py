"""aten::permute_copy.out: out[i0, i1, ...] = x[...] with dims reordered.

Any dtype. Elements of one raw unit (strided.raw_view: 4-byte words on
64-bit ports, where an int32 is a small int, halfwords, bytes) move as
small ints: nothing is boxed, every bit is kept (float32 NaN payloads
included) and the step is marked allocation-free (mpy_et/noalloc.py).
Wider ones (int64, float64; float32 on 32-bit ports, where moving two
halfwords per element measured 3x slower than boxing a float) go through
loops.copy_view: int64 as int32 halves, floats boxed one per element.
The step walks out in order and gathers from x with the permuted strides
(loops.run_rows); 1-byte and 4-byte tensors are gathered in viper where the
port has the emitter (native/gather_bytes_viper.py, gather_words_viper.py:
on a 32-bit board a float32 moves as a word, never boxed), 4-byte ones on
Arm by gather_words_thumb's assembler step.
"""

from mpy_et import dtypes, noalloc
from mpy_et.tensor import addressable
from portable_kernels.util import checks, loops, strided
from portable_kernels.util.emitters import HAS_NATIVE, HAS_THUMB


def permute_copy_out(x, dims, out):
    what = "permute_copy"
    checks.is_tensor(x, what + " self")
    checks.is_tensor(out, what + " out")
    checks.same_dtype(x, out)
    nd = len(x.sizes)
    if not isinstance(dims, (tuple, list)) or len(dims) != nd:
        checks.fail("%s: dims %r must list each of the %d dims of %s once" % (what, dims, nd, checks.shape_str(x)))
    perm = [checks.norm_dim(d, nd, what) for d in dims]
    if sorted(perm) != list(range(nd)):
        checks.fail("%s: dims %s is not a permutation of %d dims" % (what, list(dims), nd))
    sizes = tuple(x.sizes[d] for d in perm)
    checks.out_shape(out, sizes, what)
    raw = strided.units_of(x.dtype) == 1
    if raw:
        src, units = strided.raw_view(x)
        dst = strided.raw_view(out)[0]
    else:
        src, units = loops.copy_view(x)
        dst = loops.copy_view(out)[0]
    st = loops.contiguous_strides(x.sizes)
    strides = [st[d] * units for d in perm] + [1]
    plan, n, step, _ = loops.rows_plan(sizes + (units,), strides, [0] * (nd + 1))
    if plan[7] == 0:
        return None
    if plan[0] == 0 and step == 1:  # the identity permutation (up to size-1 dims)
        return loops.copy_all(x, out)
    if HAS_NATIVE and dtypes.itemsize(x.dtype) == 4 and addressable(x, out):
        if HAS_THUMB:
            from portable_kernels.native import gather_words_thumb as gather
        else:
            from portable_kernels.native import gather_words_viper as gather

        wplan, wn, wstep, _ = loops.rows_plan(sizes, [st[d] for d in perm], [0] * nd)
        fast = gather.prepare(x, out, wplan, wn, wstep)
        if fast is not None:
            return fast
    if HAS_NATIVE and dtypes.itemsize(x.dtype) == 1 and step >= 0:
        from portable_kernels.native import gather_bytes_viper

        fast = gather_bytes_viper.prepare(x, out, strided.row_starts(plan, plan[7]), n, step)
        if fast is not None:
            return fast
    return (_raw_rows if raw else loops.run_rows), loops.rows_ctx(loops.copy_row, (src, dst, n, step), plan)


def _raw_rows(ctx):
    """loops.run_rows over raw units (small ints): nothing is boxed."""
    loops.run_rows(ctx)


noalloc.mark(_raw_rows)

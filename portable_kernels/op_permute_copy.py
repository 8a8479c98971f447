"""aten::permute_copy.out: out[i0, i1, ...] = x[...] with dims reordered.

Any dtype (int64 is copied as int32 halves). The step walks out in order and
gathers from x with the permuted strides (loops.run_rows); integer steps do
not allocate, float steps box one float per element. Byte and halfword
tensors (int8 programs) get a step marked allocation-free (mpy_et/noalloc.py):
their elements are small ints on every port; 1-byte ones are gathered in
viper where the port has the emitter (gather_bytes_viper.py).
"""

from mpy_et import dtypes, noalloc
from portable_kernels import checks, loops, strided
from portable_kernels.emitters import HAS_NATIVE

_SMALL_INTS = (dtypes.BYTE, dtypes.CHAR, dtypes.SHORT, dtypes.BOOL)


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
    src, units = loops.copy_view(x)
    dst = loops.copy_view(out)[0]
    st = loops.contiguous_strides(x.sizes)
    strides = [st[d] * units for d in perm] + [1]
    plan, n, step, _ = loops.rows_plan(sizes + (units,), strides, [0] * (nd + 1))
    if plan[7] == 0:
        return None
    if plan[0] == 0 and step == 1:  # the identity permutation (up to size-1 dims)
        return loops.copy_all(x, out)
    if HAS_NATIVE and dtypes.itemsize(x.dtype) == 1 and step >= 0:
        from portable_kernels import gather_bytes_viper

        fast = gather_bytes_viper.prepare(x, out, strided.row_starts(plan, plan[7]), n, step)
        if fast is not None:
            return fast
    step_fn = _small_int_rows if x.dtype in _SMALL_INTS else loops.run_rows
    return step_fn, loops.rows_ctx(loops.copy_row, (src, dst, n, step), plan)


def _small_int_rows(ctx):
    """loops.run_rows over byte / halfword elements: nothing is boxed."""
    loops.run_rows(ctx)


noalloc.mark(_small_int_rows)

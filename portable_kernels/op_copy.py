"""aten::copy.out: out = self's shape and dtype filled from src, src
broadcast to self's shape and converted to self's dtype (torch's casts,
util/convert.py). self's values are not read. aten::copy_ is the same
into self."""

from portable_kernels.util import checks, convert, loops


def copy_out(x, src, non_blocking, out):
    what = "copy"
    checks.is_tensor(x, what + " self")
    checks.is_tensor(src, what + " src")
    checks.is_tensor(out, what + " out")
    checks.flag(non_blocking, what + " non_blocking")
    if out.dtype != x.dtype:
        checks.same_dtype(x, out)
    checks.same_shape(x, out, what)
    shape = loops.broadcast_shape(tuple(src.sizes), tuple(x.sizes), what)
    if shape != tuple(x.sizes):
        checks.fail("%s: src %s does not broadcast to self %s" % (what, checks.shape_str(src), checks.shape_str(x)))
    return convert.converter(src, out, x.sizes, loops.operand_strides(src.sizes, x.sizes), what)


def copy_(x, src, non_blocking):
    """aten::copy_ (in place: ExecuTorch's write-back of a mutable buffer at
    the end of a method): self filled from src, as copy.out with out = self.
    Same dtype: byte copies through views made here (allocation-free)."""
    return copy_out(x, src, non_blocking, x)

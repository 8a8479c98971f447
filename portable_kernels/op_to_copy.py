"""aten::_to_copy.out: x converted to out's dtype (torch's casts, see
util/convert.py). Contiguous memory format only."""

from portable_kernels.util import checks, convert, strided

# torch's MemoryFormat enum: 0 contiguous, 1 preserve (same for contiguous tensors)
_FORMATS = (None, 0, 1)


def to_copy_out(x, non_blocking, memory_format, out):
    what = "_to_copy"
    checks.is_tensor(x, what + " self")
    checks.is_tensor(out, what + " out")
    checks.flag(non_blocking, what + " non_blocking")
    if memory_format not in _FORMATS or isinstance(memory_format, bool):
        checks.not_supported("%s: memory_format %r is not supported (only contiguous)" % (what, memory_format))
    checks.same_shape(x, out, what)
    return convert.converter(x, out, x.sizes, strided.view_strides(x), what)

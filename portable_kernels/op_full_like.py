"""aten::full_like.out: out (self's shape, out's dtype) filled with
fill_value. Contiguous memory format only; the step does not allocate."""

from portable_kernels.util import checks, fill

_FORMATS = (None, 0, 1)  # torch's MemoryFormat: contiguous, preserve


def full_like_out(x, fill_value, memory_format, out):
    what = "full_like"
    checks.is_tensor(x, what + " self")
    checks.is_tensor(out, what + " out")
    if memory_format not in _FORMATS or isinstance(memory_format, bool):
        checks.not_supported("%s: memory_format %r is not supported (only contiguous)" % (what, memory_format))
    checks.same_shape(x, out, what)
    return fill.filler(out, fill_value, what)

"""aten::clone.out: a copy of x (contiguous). Any dtype; the step is one
byte-range copy and does not allocate."""

from portable_kernels.util import checks, loops

# torch's MemoryFormat enum: 0 contiguous, 1 preserve (same for contiguous tensors)
_FORMATS = (None, 0, 1)


def clone_out(x, memory_format, out):
    checks.is_tensor(x, "clone self")
    checks.is_tensor(out, "clone out")
    if memory_format not in _FORMATS or isinstance(memory_format, bool):
        checks.not_supported("clone: memory_format %r is not supported (only contiguous)" % (memory_format,))
    checks.same_dtype(x, out)
    checks.same_shape(x, out, "clone")
    return loops.copy_all(x, out)

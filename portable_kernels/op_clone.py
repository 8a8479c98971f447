"""aten::clone.out: a copy of x in out's memory order (the exporter gives out
the order memory_format asks for: contiguous, or channels-last). Any dtype;
the step is one byte-range copy, or a copy between two dim orders
(util/dim_order.py); neither allocates."""

from mpy_et import dim_orders
from portable_kernels.util import checks, dim_order, loops

# torch's MemoryFormat enum: 0 contiguous, 1 preserve, 2 channels-last
_FORMATS = (None, 0, 1)
_CHANNELS_LAST = (0, 2, 3, 1)


def clone_out(x, memory_format, out):
    checks.is_tensor(x, "clone self")
    checks.is_tensor(out, "clone out")
    if isinstance(memory_format, bool) or (
        memory_format not in _FORMATS and not (memory_format == 2 and out.dim_order is not None and tuple(out.dim_order) == _CHANNELS_LAST)
    ):
        checks.not_supported(
            "clone: memory_format %r is not supported here (contiguous, preserve, channels-last into a channels-last out)"
            % (memory_format,)
        )
    checks.same_dtype(x, out)
    checks.same_shape(x, out, "clone")
    if dim_order.converts(x, out):
        return dim_order.copy_between(x, out, "clone")
    return loops.copy_all(x, out)


dim_orders.mark(clone_out)

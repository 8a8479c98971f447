"""Run one cortex_m:: kernel of ours on torch tensors (CPython), in any dim order."""

import torch

from host_tools.lowering.ir import SCALAR_TYPES, tensor_bytes
from host_tools.targets.dim_orders import from_memory, to_memory
from mpy_et.tensor import Tensor
from portable_kernels.registry import KERNELS

CHANNELS_LAST = (0, 2, 3, 1)


def order_of(t):
    """t's memory order as ExecuTorch's dim_order (None: contiguous)."""
    order = tuple(t.dim_order())
    return None if order == tuple(range(t.dim())) else order


def tensor(t, order=None):
    """An mpy_et Tensor holding t's values, its bytes in `order` (default: t's own)."""
    order = order_of(t) if order is None else (None if tuple(order) == tuple(range(t.dim())) else tuple(order))
    m = Tensor(SCALAR_TYPES[t.dtype], tuple(t.shape))
    m.bind(bytearray(tensor_bytes(to_memory(t, order)) or b"\0"), 0)
    if order is not None:
        m.dim_order = order
    return m


def empty(shape, dtype=torch.int8, order=None):
    return tensor(torch.zeros(shape, dtype=dtype), order)


def value(m, dtype):
    """The torch tensor an mpy_et Tensor holds (strides in its memory order)."""
    raw = bytearray(m.buf[m.offset : m.offset + m.nbytes])
    t = torch.frombuffer(raw, dtype=dtype) if raw else torch.zeros(0, dtype=dtype)
    return from_memory(t.reshape(list(m.sizes)), m.dim_order)


def run(op, args, out):
    """Call cortex_m::op's kernel with args + [out], run its step; returns out's values."""
    mod, fn = KERNELS["cortex_m::%s.out" % op]
    kernel = getattr(__import__(mod, fromlist=[fn]), fn)
    step = kernel(*args, out)
    if step is not None:
        step[0](step[1])
    return value(out, torch.float32 if out.dtype == 6 else torch.int8 if out.dtype == 1 else torch.int16)

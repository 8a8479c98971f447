"""Channels-last programs: keep a tensor in the memory order torch gives it,
where the kernel that reads or writes it can run in that order.

torch.export records each value's strides; a model and input converted with
`.to(memory_format=torch.channels_last)` give 4-D values whose memory order
is N, H, W, C: dim order (0, 2, 3, 1), as ExecuTorch's to_edge keeps them.
Lowering notes that order on each tensor (memory_order); settle() then walks
the instructions in program order and asks each kernel
(mpy_et.dim_orders.accepts, the question the device asks at load):
- a kernel that takes the orders keeps them (convolution, max pooling,
  elementwise ops over one shared order, the cortex_m:: kernels, ...);
- an input in another order of a kernel that does not is converted first
  by a `dim_order_ops::_to_dim_order_copy` into a contiguous tensor (one per
  source, shared by its readers), as ExecuTorch emits before such an op;
- an output of such a kernel is contiguous.
A tensor that a view (an alias) reads is contiguous. Constants kept in
another order are written in that order. Program inputs keep theirs
(host_tools.run writes each input's bytes in its program order).
"""

import importlib

import torch

from host_tools.lowering.ir import ELEMENT_SIZE, Instruction, TensorValue
from mpy_et import dim_orders as device_orders
from portable_kernels.registry import KERNELS

CHANNELS_LAST = (0, 2, 3, 1)
CONVERT_OP = "dim_order_ops::_to_dim_order_copy.out"


def memory_order(val):
    """The dim order of a (fake or real) tensor when it is channels-last and
    not also contiguous (size-1 dims can make it both), else None."""
    if not isinstance(val, torch.Tensor) or val.dim() != 4 or val.is_contiguous():
        return None
    return CHANNELS_LAST if val.is_contiguous(memory_format=torch.channels_last) else None


class _Arg:
    """What mpy_et.dim_orders.accepts reads of a tensor argument."""

    def __init__(self, t):
        self.sizes = t.sizes
        self.dim_order = t.dim_order
        n = 1
        for s in t.sizes:
            n *= s
        self.numel = n


def _kernel(op):
    entry = KERNELS.get(op)
    if entry is None:
        return None  # a custom operator: taken as contiguous-only
    return getattr(importlib.import_module(entry[0]), entry[1])


def _reorder(data, sizes, itemsize, order):
    """Row-major bytes of a tensor rearranged into memory order `order`."""
    t = torch.frombuffer(bytearray(data), dtype=torch.uint8).reshape(tuple(sizes) + (itemsize,))
    return bytes(t.permute(tuple(order) + (len(sizes),)).contiguous().flatten().tolist())


def settle(ir, keep=True):
    """Fix every tensor's dim order in `ir` (see the module docstring);
    keep=False makes the whole program contiguous (for passes that slice
    NCHW tensors: patch=, delegates)."""
    tensors = [v.payload for v in ir.values if v.kind == "Tensor"]
    if not keep or not any(t.dim_order is not None for t in tensors):
        for t in tensors:
            t.dim_order = None
        return
    for t in tensors:  # a view reads its base's bytes in the contiguous order
        if t.alias_of is not None:
            ir.tensor(ir.storage_of(t.alias_of)).dim_order = None
    known = set(ir.inputs) | set(ir.state)
    known.update(i for i, v in enumerate(ir.values) if v.kind == "Tensor" and v.payload.constant is not None)
    converted = {}
    out = []
    for ins in ir.instructions:
        if ins.kind != "KernelCall":
            raise ValueError("channels-last tensors with control flow or delegate calls are not supported; export the model contiguous")
        tens = [i for i in ins.args if ir.values[i].kind == "Tensor"]
        args = [_Arg(ir.values[i].payload) for i in tens]
        kernel = _kernel(ins.op)
        if kernel is None or not device_orders.accepts(kernel, args):
            for k, i in enumerate(ins.args):
                t = ir.tensor(i)
                if t is None or t.dim_order is None:
                    continue
                if ir.storage_of(i) in known or i in known:
                    if i not in converted:
                        converted[i] = _convert(ir, i, t, out, ins.source)
                    ins.args[k] = converted[i]
                else:
                    t.dim_order = None  # this kernel writes it: contiguous
        out.append(ins)
        known.update(ins.args)
    ir.instructions[:] = out
    for t in tensors:
        if t.dim_order is not None and t.constant is not None:
            t.constant = _reorder(t.constant, t.sizes, ELEMENT_SIZE[t.dtype], t.dim_order)


def _convert(ir, i, t, out, source):
    """Emit x -> contiguous copy before the current instruction; its value index."""
    dst = ir.add("Tensor", TensorValue(t.dtype, t.sizes, (t.name or "t") + "_contiguous"))
    order = ir.add("IntList", [ir.scalar("Int", d) for d in range(len(t.sizes))])
    out.append(Instruction(CONVERT_OP, [i, ir.scalar("Bool", False), order, dst], source))
    return dst

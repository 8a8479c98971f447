"""The program as the host builds it: values, instructions, inputs, outputs.

Lowering fills it, the memory planner places its tensors, the serializer
writes it as a .pte. Value kinds mirror the schema's KernelTypes union.
"""

import ctypes
from dataclasses import dataclass, field
from typing import Optional

import torch

# torch dtype -> ExecuTorch scalar type (torch's c10::ScalarType numbering)
SCALAR_TYPES = {
    torch.uint8: 0,
    torch.int8: 1,
    torch.int16: 2,
    torch.int32: 3,
    torch.int64: 4,
    torch.float16: 5,
    torch.float32: 6,
    torch.float64: 7,
    torch.bool: 11,
}
ELEMENT_SIZE = {0: 1, 1: 1, 2: 2, 3: 4, 4: 8, 5: 2, 6: 4, 7: 8, 11: 1}


def tensor_bytes(t):
    """Raw little-endian bytes of a tensor's elements in row-major order.

    torch does not depend on numpy, so `t.numpy()` is not available on a
    fresh install: read the contiguous storage directly.
    """
    t = t.detach().cpu().contiguous()
    n = t.numel() * t.element_size()
    return ctypes.string_at(t.data_ptr(), n) if n else b""


@dataclass
class TensorValue:
    """A tensor. Exactly one of: constant data, an alias base, or planned storage
    (with an initial value for a mutable buffer)."""

    dtype: int
    sizes: tuple
    name: str = ""
    constant: Optional[bytes] = None  # raw little-endian data of a constant
    alias_of: Optional[int] = None  # value index of the tensor whose storage this views
    alias_offset: int = 0  # bytes from alias_of's first byte to this view's (planning/views.py)
    initial: Optional[bytes] = None  # a mutable buffer's value when the method loads (planned storage)
    fqn: Optional[str] = None  # a mutable buffer's name in the model, e.g. "encoder.state"
    dim_order: Optional[tuple] = None  # memory order when not contiguous, e.g. (0, 2, 3, 1) (lowering/dim_orders.py)
    mem_id: int = 0  # set by the memory planner (1 = the activation arena)
    offset: int = 0
    dynamic: bool = False  # sizes are an upper bound (DYNAMIC_BOUND: host_tools/lowering/dynamic.py)
    filled: bool = False  # a map's result: DYNAMIC_BOUND for ExecuTorch's et_copy_index, full once the loop ends

    @property
    def nbytes(self):
        n = ELEMENT_SIZE[self.dtype]
        for s in self.sizes:
            n *= s
        return n


@dataclass
class Value:
    """One entry of the values table. kind is a KernelTypes member name."""

    kind: str  # "Null", "Int", "Bool", "Double", "String", "Tensor", "IntList", ...
    payload: object = None  # number, string, TensorValue, or list of value indices / numbers


@dataclass
class Instruction:
    op: str  # "aten::convolution.out" ("delegate:<backend id>" for a delegate call, "" for control flow)
    args: list  # value indices, outputs last; MoveCall: [from, to]; JumpFalseCall: [condition]
    source: str = ""  # "model.py:12 in forward: x = self.conv(x)"
    kind: str = "KernelCall"  # or "MoveCall", "JumpFalseCall" (torch.cond: host_tools/lowering/cond.py)
    jump: int = 0  # JumpFalseCall: the instruction to continue at when the condition is false
    delegate: Optional[int] = None  # a DelegateCall: index into ProgramIR.delegates (args: inputs, then outputs)


@dataclass
class Delegate:
    """A subgraph a backend took (host_tools/delegates): ExecuTorch's BackendDelegate."""

    backend_id: str  # e.g. "UlabBackend"
    processed: bytes  # the backend's blob (written as a segment of its own)
    compile_specs: list = field(default_factory=list)  # (key, bytes value)


@dataclass
class ProgramIR:
    values: list = field(default_factory=list)
    instructions: list = field(default_factory=list)
    inputs: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    state: list = field(default_factory=list)  # value indices of mutable buffers (alive across execute() calls)
    arena_sizes: list = field(default_factory=list)  # bytes per memory id 1..n (planner)
    plan_info: dict = field(default_factory=dict)  # planner options, lower bound, algorithm per memory id
    delegates: list = field(default_factory=list)  # Delegate per delegate call's delegate index
    _interned: dict = field(default_factory=dict)

    def add(self, kind, payload=None):
        self.values.append(Value(kind, payload))
        return len(self.values) - 1

    def scalar(self, kind, payload=None):
        """Index of a shared Null/Int/Bool/Double/String value (deduplicated)."""
        key = (kind, type(payload).__name__, payload)
        if key not in self._interned:
            self._interned[key] = self.add(kind, payload)
        return self._interned[key]

    def tensor(self, index):
        v = self.values[index]
        return v.payload if v.kind == "Tensor" else None

    def storage_of(self, index):
        """Follow aliases to the value index that owns the storage."""
        t = self.tensor(index)
        while t is not None and t.alias_of is not None:
            index = t.alias_of
            t = self.tensor(index)
        return index

"""Kernel test cases, with expected outputs computed by torch on the host.

A case calls one registered kernel with arguments in its out-variant schema
order. Inputs are torch tensors; outputs are `Out` placeholders. The
expected outputs come from calling the same torch out-variant op
(torch.ops.aten.<op>.<overload>) on the same arguments, so the argument
order and the semantics are torch's own. Error cases name the MpyEtError
code and a piece of the message the load-time check must raise.

serialize() turns the cases into JSON lines plus one binary blob, the form
tests/device/kernel_runner.py reads on every target.
"""

import json
import math

import torch

from host_tools.lowering.ir import tensor_bytes
from mpy_et import dtypes

TORCH_DTYPES = {
    dtypes.BYTE: torch.uint8,
    dtypes.CHAR: torch.int8,
    dtypes.SHORT: torch.int16,
    dtypes.INT: torch.int32,
    dtypes.LONG: torch.int64,
    dtypes.FLOAT: torch.float32,
    dtypes.DOUBLE: torch.float64,
    dtypes.BOOL: torch.bool,
}
CODES = {v: k for k, v in TORCH_DTYPES.items()}
_ALIGN = 8


class Out:
    """An out tensor to preallocate (filled with garbage before the step)."""

    def __init__(self, sizes, dtype=torch.float32):
        self.sizes = tuple(sizes)
        self.dtype = dtype


class Dtype:
    """A ScalarType argument (the runtime passes its integer code)."""

    def __init__(self, dtype):
        self.dtype = dtype


class Case:
    def __init__(self, name, op, args, atol=1e-5, rtol=1e-5, noalloc=False, error=None, reference=None):
        self.name = name
        self.op = op
        self.args = list(args)
        self.atol = atol
        self.rtol = rtol
        self.noalloc = noalloc
        self.error = error  # (code, text) for a case whose load-time check must fail
        self.expected = None
        # computes the expected outs from args, for ops torch does not register
        # (ExecuTorch's dim_order_ops without importing executorch)
        self.reference = reference


def torch_op(key):
    """torch.ops.aten.add.out for 'aten::add.out'."""
    ns, rest = key.split("::")
    name, overload = rest.split(".")
    return getattr(getattr(getattr(torch.ops, ns), name), overload)


def _to_torch(v):
    if isinstance(v, Out):
        return torch.empty(v.sizes, dtype=v.dtype)
    if isinstance(v, Dtype):
        return v.dtype
    if isinstance(v, list) and v and isinstance(v[0], (torch.Tensor, Out)):
        return [_to_torch(x) for x in v]
    if isinstance(v, torch.Tensor):
        return v.clone()
    return v


def expected(case):
    """The out tensors after torch runs the case's op on the case's arguments."""
    op = torch_op(case.op)
    pos, kw, outs = [], {}, []
    for a, v in zip(op._schema.arguments, case.args, strict=True):
        tv = _to_torch(v)
        if a.is_out:
            outs.extend(tv if isinstance(tv, list) else [tv])  # Tensor(a!)[] outs in order
        if a.kwarg_only:
            kw[a.name] = tv
        else:
            pos.append(tv)
    op(*pos, **kw)
    return outs


def build(cases):
    """Compute every non-error case's expected outputs with torch."""
    for c in cases:
        if c.error is None:
            c.expected = c.reference(*[_to_torch(v) for v in c.args]) if c.reference else expected(c)
    names = [c.name for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    assert not dup, "duplicate case names: %s" % sorted(dup)
    return cases


class _Blob:
    def __init__(self):
        self.data = bytearray()

    def add(self, raw):
        pad = -len(self.data) % _ALIGN
        self.data += bytes(pad)
        off = len(self.data)
        self.data += raw
        return off


def _encode(v, blob):
    if isinstance(v, Out):
        return {"T": [CODES[v.dtype], list(v.sizes), -1]}
    if isinstance(v, torch.Tensor):
        raw = tensor_bytes(v)
        return {"T": [CODES[v.dtype], list(v.shape), blob.add(raw)]}
    if isinstance(v, Dtype):
        return CODES[v.dtype]
    if isinstance(v, float) and not math.isfinite(v):
        return {"F": repr(v)}
    if isinstance(v, (list, tuple)):
        return [_encode(x, blob) for x in v]
    return v


def _out_paths(args):
    """Where the out tensors are: i for args[i], [i, j] for args[i][j] (a Tensor[] out)."""
    paths = []
    for i, v in enumerate(args):
        if isinstance(v, Out):
            paths.append(i)
        elif isinstance(v, list) and v and all(isinstance(x, Out) for x in v):
            paths += [[i, j] for j in range(len(v))]
    return paths


def serialize(cases):
    """(JSON lines bytes, blob bytes) for tests/device/kernel_runner.py."""
    blob = _Blob()
    lines = []
    for c in cases:
        d = {
            "name": c.name,
            "op": c.op,
            "args": [_encode(v, blob) for v in c.args],
            "atol": c.atol,
            "rtol": c.rtol,
            "noalloc": c.noalloc,
            "error": list(c.error) if c.error else None,
            "outs": _out_paths(c.args),
            "expect": [],
        }
        if c.expected is not None:
            d["expect"] = [blob.add(tensor_bytes(t)) for t in c.expected]
        lines.append(json.dumps(d, allow_nan=False))
    return ("\n".join(lines) + "\n").encode(), bytes(blob.data)

"""Delegation at export: a backend takes parts of the lowered program.

A backend is one small module here (e.g. host_tools/delegates/ulab.py) with

    BACKEND_ID                         the id the device resolves (mpy_et/backends/__init__.py)
    partition(ir) -> [[i, ...], ...]   runs of consecutive instruction indices it claims
    preprocess(ir, instructions, inputs, outputs) -> (blob bytes, [(key, bytes)])
                                       the claimed instructions as the backend's blob
                                       and compile specs; inputs/outputs: value indices
                                       of the call's arguments, in order

delegate(ir, name) replaces each run by one DelegateCall (ExecuTorch's
calling convention: the inputs, then the outputs) whose blob the serializer
writes as a segment of its own. Weights the blob holds and the tensors only
the run used are dropped from the program.
"""

import importlib

from host_tools.lowering.ir import Delegate, Instruction, Value
from host_tools.planning.lifetimes import outputs_of

BACKENDS = ("ulab",)


def backend_module(name):
    """The host module of backend `name` (one of BACKENDS)."""
    if name not in BACKENDS:
        raise ValueError("delegate=%r: no such backend; choose one of %s" % (name, ", ".join(BACKENDS)))
    return importlib.import_module("host_tools.delegates." + name)


def delegate(ir, name):
    """Hand the runs backend `name` claims to it, in place; returns the
    instructions each delegate call replaced ([[op name, ...], ...])."""
    backend = backend_module(name)
    if any(ins.kind != "KernelCall" for ins in ir.instructions):
        # a run could cross a branch, and the jumps' destinations would move
        raise ValueError("delegate=%r: programs with control flow (torch.cond) are not delegated" % name)
    runs = backend.partition(ir)
    if not runs:
        return []
    claimed = {i for run in runs for i in run}
    first = {run[0]: run for run in runs}
    kept, replaced = [], []
    for i, ins in enumerate(ir.instructions):
        if i in first:
            run = first[i]
            inputs, outputs = _boundary(ir, run)
            blob, specs = backend.preprocess(ir, [ir.instructions[j] for j in run], inputs, outputs)
            ir.delegates.append(Delegate(backend.BACKEND_ID, blob, specs))
            source = ir.instructions[run[0]].source
            kept.append(Instruction("delegate:" + backend.BACKEND_ID, inputs + outputs, source, delegate=len(ir.delegates) - 1))
            replaced.append([ir.instructions[j].op for j in run])
        elif i not in claimed:
            kept.append(ins)
    ir.instructions = kept
    _drop_unused(ir)
    return replaced


def _tensors_of(ir, a):
    v = ir.values[a]
    items = v.payload if v.kind in ("TensorList", "OptionalTensorList") else [a]
    return [i for i in items if i is not None and ir.tensor(i) is not None]


def _boundary(ir, run):
    """(inputs, outputs) of a run: tensors it reads that are neither
    constants nor made in it; tensors it makes that are read after it
    (by storage: a view of one counts) or are method outputs or state."""
    made = set()
    for j in run:
        made.update(outputs_of(ir, ir.instructions[j]))
    inputs = []
    for j in run:
        for a in ir.instructions[j].args:
            for t in _tensors_of(ir, a):
                owner = ir.storage_of(t)
                if owner in made or ir.tensor(owner).constant is not None or t in inputs:
                    continue
                inputs.append(t)
    later = set(ir.storage_of(o) for o in ir.outputs) | set(ir.storage_of(s) for s in ir.state)
    mine = set(run)
    for i, ins in enumerate(ir.instructions):  # the program as lowered: other runs read too
        if i not in mine:
            for a in ins.args:
                later.update(ir.storage_of(t) for t in _tensors_of(ir, a))
    outputs = [m for m in sorted(made) if m in later]
    return inputs, outputs


def _drop_unused(ir):
    """Tensors and tensor lists no instruction, input, output or state refers
    to any more (weights now in a blob, a run's intermediates) become Null values."""
    used = set(ir.inputs) | set(ir.outputs) | set(ir.state)
    for ins in ir.instructions:
        for a in ins.args:
            used.add(a)
            used.update(_tensors_of(ir, a))
    for i in list(used):
        while ir.tensor(i) is not None and ir.tensor(i).alias_of is not None:
            i = ir.tensor(i).alias_of
            used.add(i)
    for i, v in enumerate(ir.values):
        if v.kind in ("Tensor", "TensorList", "OptionalTensorList") and i not in used:
            ir.values[i] = Value("Null")  # a list too: its items may be gone (native_layer_norm's outputs)

"""Intermediate outputs captured on the device (EventTracer(capture=True)) as
torch tensors: the debug buffer holds every step's output tensors, in step
order, each as its bytes in the arena; their dtypes and shapes are read
from the program."""

import torch

from host_tools.lowering.ir import SCALAR_TYPES
from mpy_et import Program, dtypes
from mpy_et import schema as S
from mpy_et.errors import INVALID_ARGUMENT, MpyEtError
from mpy_et.flatbuf import FlatReader

_TORCH = {code: dt for dt, code in SCALAR_TYPES.items()}


def step_output_specs(pte, instructions, method="forward"):
    """Per instruction index, [(scalar type, sizes)] of the tensors its call
    writes (its last argument: the out tensor, or the list of them), as
    mpy_et.Method._step_outputs reads them."""
    program = Program.load(pte)
    r = program.reader
    plan = program._plans[method]
    vs, _ = r.vector(plan, S.EXECUTION_PLAN_VALUES, 4, "values")
    s, _ = r.vector(plan, S.EXECUTION_PLAN_CHAINS, 4, "chains")
    si, _ = r.vector(r.table_at(s, 0, "chains[0]"), S.CHAIN_INSTRUCTIONS, 4, "instructions")
    out = {}
    for i in instructions:
        call = r.subtable(r.table_at(si, i, "instruction"), S.INSTRUCTION_INSTR_ARGS, "call")
        sa, na = r.vector(call, S.KERNEL_CALL_ARGS, 4, "args")
        ev = r.table_at(vs, r.ints(sa, na, "i")[-1], "values")
        items = [r.subtable(ev, S.EVALUE_VAL, "values")]
        if r.scalar(ev, S.EVALUE_VAL_TYPE, FlatReader.u8, 0, "values") == S.KERNEL_TYPES_TENSOR_LIST:
            s2, k = r.vector(items[0], S.TENSOR_LIST_ITEMS, 4, "items")
            items = [r.subtable(r.table_at(vs, j, "values"), S.EVALUE_VAL, "values") for j in r.ints(s2, k, "i")]
        specs = []
        for t in items:
            sz, k = r.vector(t, S.TENSOR_SIZES, 4, "sizes")
            specs.append((r.scalar(t, S.TENSOR_SCALAR_TYPE, FlatReader.u8, 0, "tensor"), tuple(r.ints(sz, k, "i"))))
        out[i] = specs
    return out


def debug_layout(pte, steps, method="forward"):
    """[(operator, instruction, [(scalar type, sizes, offset)])]: where each
    step's outputs lie in the device's debug buffer (etdump.write's debug)."""
    specs = step_output_specs(pte, [i for i, _ in steps], method)
    out, off = [], 0
    for i, op in steps:
        tensors = []
        for dtype, sizes in specs[i]:
            tensors.append((dtype, sizes, off))
            n = dtypes.itemsize(dtype)
            for d in sizes:
                n *= d
            off += n
        out.append((op, i, tensors))
    return out


def intermediates(pte, steps, debug, method="forward"):
    """[{"instruction", "operator", "outputs": [torch tensors]}] from a debug buffer.

    Args:
        pte: program bytes.
        steps: [(instruction index, operator)] the device traced, in order.
        debug: the device's debug buffer (bytes).
    """
    if debug is None:
        raise MpyEtError(INVALID_ARGUMENT, "no captured outputs (run with capture=True)")
    specs = step_output_specs(pte, [i for i, _ in steps], method)
    out, off = [], 0
    for i, op in steps:
        tensors = []
        for dtype, sizes in specs[i]:
            n = dtypes.itemsize(dtype)
            for d in sizes:
                n *= d
            if off + n > len(debug):
                raise MpyEtError(INVALID_ARGUMENT, "debug buffer of %d bytes ends inside instruction %d's output" % (len(debug), i))
            raw = bytearray(debug[off : off + n])
            t = torch.frombuffer(raw, dtype=_TORCH[dtype]) if n else torch.empty(0, dtype=_TORCH[dtype])
            tensors.append(t.reshape(sizes).clone())
            off += n
        out.append({"instruction": i, "operator": op, "outputs": tensors})
    if off != len(debug):
        raise MpyEtError(INVALID_ARGUMENT, "debug buffer has %d bytes; the steps' outputs are %d" % (len(debug), off))
    return out

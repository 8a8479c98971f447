"""Copies that are views: a slice, select or split whose result is one
contiguous range of its input's bytes becomes an alias of that range, and
its instruction goes.

`slice_copy(x, dim, start, end, 1)`, `select_copy(x, dim, i)` and
`split_with_sizes_copy(x, sizes, dim)` of a contiguous x whose dims before
`dim` all have size 1 (a recurrent cell's gates out of one [1, 4H]
product, a batch-1 sequence's time step) write out a run of x's bytes
unchanged. The planner then places the result inside x's buffer, at the
run's byte offset (TensorValue.alias_offset), and x's buffer stays alive
as long as the result is read (planning/lifetimes.py follows aliases to
their storage). Nothing on the device changes: a tensor is an arena
offset, and ExecuTorch's runtime reads the same .pte the same way.

On the 224 KB board each instruction costs ~200 B of RAM kept at load and
~900 instructions per run (a step call and a copy): gru int8 has 140 such
slices in 368 instructions.

Left as copies: a run not at a multiple of the plan's alignment (kernels
read words), programs with control flow (jumps index instructions),
dynamic shapes, channels-last tensors, constants, mutable state, map
results, and a method input or output as the result (a method input
may be the viewed tensor).
"""

from host_tools.lowering.ir import ELEMENT_SIZE

SLICE = "aten::slice_copy.Tensor_out"
SELECT = "aten::select_copy.int_out"
SPLIT = "aten::split_with_sizes_copy.out"


def alias_views(ir, alignment):
    """Turn the view-like copies of `ir` into aliases (in place); returns how
    many instructions went."""
    if any(ins.kind != "KernelCall" for ins in ir.instructions):
        return 0
    state = set(ir.storage_of(i) for i in ir.state)
    fixed = state | set(ir.inputs) | set(ir.outputs)
    keep = []
    for ins in ir.instructions:
        runs = _runs(ir, ins, state, fixed)
        if runs is None or any((alias_offset(ir, x) + off) % alignment for x, _, off in runs):
            keep.append(ins)
            continue
        for x, out, off in runs:
            t = ir.tensor(out)
            t.alias_of, t.alias_offset = x, off
    gone = len(ir.instructions) - len(keep)
    ir.instructions = keep
    return gone


def alias_offset(ir, index):
    """Bytes from the start of value `index`'s storage to its first byte."""
    off = 0
    t = ir.tensor(index)
    while t is not None and t.alias_of is not None:
        off += t.alias_offset
        t = ir.tensor(t.alias_of)
    return off


def _int(ir, index):
    v = ir.values[index]
    return v.payload if v.kind == "Int" else None


def _plain(t):
    return t is not None and t.constant is None and not t.dynamic and not t.filled and t.dim_order is None and t.initial is None


def _runs(ir, ins, state, fixed):
    """[(x, out, byte offset in x)] when the instruction only copies contiguous
    runs of x into whole outputs; None otherwise."""
    if ins.op not in (SLICE, SELECT, SPLIT):
        return None
    x = ins.args[0]
    xt = ir.tensor(x)
    if not _plain(xt) or ir.storage_of(x) in state:
        return None
    nd = len(xt.sizes)
    dim = _int(ir, ins.args[2] if ins.op == SPLIT else ins.args[1])
    if dim is None or not -nd <= dim < nd:
        return None
    dim %= nd
    for s in xt.sizes[:dim]:
        if s != 1:
            return None
    inner = ELEMENT_SIZE[xt.dtype]
    for s in xt.sizes[dim + 1 :]:
        inner *= s
    if ins.op == SPLIT:
        v = ir.values[ins.args[-1]]
        if v.kind != "TensorList":
            return None
        outs, sizes = v.payload, ir.values[ins.args[1]].payload
        if not isinstance(sizes, list) or len(sizes) != len(outs):
            return None
        starts, at = [], 0
        for out, n in zip(outs, sizes):
            n = _int(ir, n)
            if n is None or ir.tensor(out) is None or ir.tensor(out).nbytes != n * inner:
                return None
            starts.append(at)
            at += n
        pieces = list(zip(outs, starts))
    elif ins.op == SLICE:
        start, end, step = (_int(ir, a) if ir.values[a].kind != "Null" else None for a in ins.args[2:5])
        size = xt.sizes[dim]
        if step != 1:
            return None
        start = 0 if start is None else (start + size if start < 0 else start)
        end = size if end is None else (end + size if end < 0 else end)
        start, end = min(max(start, 0), size), min(max(end, 0), size)
        if ir.tensor(ins.args[-1]).nbytes != max(end - start, 0) * inner:
            return None
        pieces = [(ins.args[-1], start)]
    else:
        i = _int(ir, ins.args[2])
        if i is None:
            return None
        if ir.tensor(ins.args[-1]).nbytes != inner:
            return None
        pieces = [(ins.args[-1], i + xt.sizes[dim] if i < 0 else i)]
    runs = []
    for out, start in pieces:
        ot = ir.tensor(out)
        if not _plain(ot) or ot.alias_of is not None or out in fixed or ot.dtype != xt.dtype:
            return None
        if start * inner + ot.nbytes > xt.nbytes:
            return None
        runs.append((x, out, start * inner))
    return runs

"""Ahead-of-time memory planning: every non-constant tensor gets a memory id
and an offset so that tensors alive at the same time never share bytes.

plan() builds the buffers (lifetimes.py: views share their base's buffer,
an elementwise op may write over an input that dies there), sorts them into
memory ids (pin: inputs, outputs, the largest activations or named tensors
into a second arena, e.g. internal SRAM vs PSRAM), runs every placement
algorithm (algorithms.py) on each memory id and keeps the smallest plan,
then checks it with verify().
"""

import fnmatch

from host_tools.planning import algorithms as algos
from host_tools.planning.lifetimes import Buffer, buffers, lower_bound  # noqa: F401 (re-exported)
from host_tools.planning.views import alias_offset


class PlanError(AssertionError):
    """The memory plan is wrong: two live tensors overlap, one is out of bounds or misaligned."""


def _align(n, alignment):
    return (n + alignment - 1) // alignment * alignment


def lifetimes(ir, preserve_inputs=False, inplace=True):
    """Buffer owner value index -> Buffer (start, end, members)."""
    return buffers(ir, preserve_inputs, inplace)


def _memory_ids(ir, bufs, pin):
    """Apply pin rules: {"inputs"|"outputs"|"largest:N"|name pattern: memory id}."""
    for b in bufs:
        b.mem_id = 1
    if not pin:
        return 1
    inputs = {ir.storage_of(i) for i in ir.inputs}
    outputs = {ir.storage_of(o) for o in ir.outputs}
    by_size = sorted(bufs, key=lambda b: (-b.nbytes, b.start))
    for rule, mem_id in pin.items():
        if not isinstance(mem_id, int) or mem_id < 1:
            raise ValueError("pin %r: memory id must be an int >= 1, got %r" % (rule, mem_id))
        if rule == "inputs":
            chosen = [b for b in bufs if inputs & set(b.members)]
        elif rule == "outputs":
            chosen = [b for b in bufs if outputs & set(b.members)]
        elif rule.startswith("largest:"):
            chosen = by_size[: int(rule.split(":", 1)[1])]
        else:
            chosen = [b for b in bufs if any(fnmatch.fnmatchcase(ir.tensor(m).name, rule) for m in b.members)]
            if not chosen:
                names = sorted({ir.tensor(m).name for b in bufs for m in b.members})
                raise ValueError("pin %r matches no planned tensor; planned tensors: %s" % (rule, ", ".join(names)))
        for b in chosen:
            b.mem_id = mem_id
    return max(max(pin.values()), 1)


def place(bufs, alignment, exact_nodes=200000):
    """Best offsets for buffers sharing one arena: (offsets, size, algorithm name, optimal)."""
    if not bufs:
        return {}, 0, "none", True
    bound = lower_bound(bufs, alignment)[0]
    best = None
    for name, fn in algos.ALGORITHMS.items():
        offsets = fn(bufs, alignment)
        size = algos.size_of(bufs, offsets, alignment)
        if best is None or size < best[1]:
            best = (offsets, size, name)
        if size <= bound:
            return offsets, size, name, True
    nodes = exact_nodes if len(bufs) <= algos.EXACT_LIMIT else exact_nodes // 100
    offsets, optimal = algos.search(bufs, alignment, bound, best[0], nodes)
    size = algos.size_of(bufs, offsets, alignment)
    if size < best[1]:
        return offsets, size, "search", optimal
    return best[0], best[1], best[2], optimal


def shared_state_layout(irs, alignment=16):
    """Where the mutable buffers of several methods of one program go when
    they share them (as ExecuTorch's share_mutable_buffers): one offset per
    buffer name, the same in every method. Returns ({name: offset}, bytes)."""
    layout, size = {}, 0
    for ir in irs:
        for i in ir.state:
            t = ir.tensor(i)
            if t.fqn not in layout:
                layout[t.fqn] = size
                size += _align(t.nbytes, alignment)
    return layout, size


def plan(ir, alignment=16, preserve_inputs=False, pin=None, inplace=True, shared_state=None):
    """Assign (memory id, offset) to every planned tensor and its aliases.

    Args:
        ir: the lowered ProgramIR (tensors are updated in place).
        alignment: every planned tensor starts at a multiple of this.
        preserve_inputs: keep inputs intact through execute() (costs RAM).
        pin: {rule: memory id} with rules "inputs", "outputs", "largest:N"
            or a tensor name pattern (fnmatch); the rest goes to memory id 1.
        inplace: let elementwise ops write over a dying same-shaped input.
        shared_state: (memory id, {buffer name: offset}, bytes) from
            shared_state_layout(): the mutable buffers (ir.state) go there,
            at the same place in every method of the program; the memory id
            must be above every id pin uses.
    Returns:
        Total planned bytes. ir.arena_sizes holds bytes per memory id 1..n and
        ir.plan_info the lower bound and the algorithm chosen per memory id.
    """
    if alignment < 1 or alignment & (alignment - 1):
        raise ValueError("alignment must be a power of two, got %r" % (alignment,))
    bufs = list(buffers(ir, preserve_inputs, inplace).values())
    n_ids = _memory_ids(ir, bufs, pin)
    fixed = {}
    if shared_state is not None:
        state_id, layout, _ = shared_state
        if state_id <= n_ids:
            raise ValueError("shared state memory id %d must be above the %d the plan uses" % (state_id, n_ids))
        owners = {ir.storage_of(i): ir.tensor(i).fqn for i in ir.state}
        for b in bufs:
            if b.owner in owners:
                b.mem_id, fixed[b.owner] = state_id, layout[owners[b.owner]]
        n_ids = state_id
    sizes, info = [], []
    for mem_id in range(1, n_ids + 1):
        mine = [b for b in bufs if b.mem_id == mem_id]
        if shared_state is not None and mem_id == shared_state[0]:
            offsets, size, algorithm, optimal = fixed, shared_state[2], "shared state", True
        else:
            offsets, size, algorithm, optimal = place(mine, alignment)
        for b in mine:
            for m in b.members:
                t = ir.tensor(m)
                t.mem_id, t.offset = mem_id, offsets[b.owner] + alias_offset(ir, m)
        sizes.append(size)
        info.append(
            {
                "mem_id": mem_id,
                "bytes": size,
                "lower_bound_bytes": lower_bound(mine, alignment)[0],
                "algorithm": algorithm,
                "optimal": optimal,
                "tensors": len(mine),
            }
        )
    ir.arena_sizes = sizes if bufs else []
    ir.plan_info = {
        "alignment": alignment,
        "preserve_inputs": preserve_inputs,
        "inplace": inplace,
        "lower_bound_bytes": lower_bound(bufs, alignment)[0],
        "memory_ids": info,
    }
    verify(ir)
    return sum(sizes)


def verify(ir):
    """Check the plan: no two tensors alive at the same time share bytes unless
    they share a buffer (a view, or an in-place output at the same offset);
    every tensor lies inside its arena; every offset is aligned."""
    opts = getattr(ir, "plan_info", None) or {}
    alignment = opts.get("alignment", 1)
    bufs = list(buffers(ir, opts.get("preserve_inputs", False), opts.get("inplace", True)).values())
    sizes = ir.arena_sizes or []
    for b in bufs:
        first = ir.tensor(b.members[0])
        for m in b.members:
            t = ir.tensor(m)
            if (t.mem_id, t.offset - alias_offset(ir, m)) != (first.mem_id, first.offset - alias_offset(ir, b.members[0])):
                raise PlanError("tensor %s (values[%d]) shares storage with %s but is placed elsewhere" % (t.name, m, first.name))
            if t.mem_id < 1 or t.mem_id > len(sizes) or t.offset < 0 or t.offset + t.nbytes > sizes[t.mem_id - 1]:
                raise PlanError("tensor %s (values[%d]) at memory id %d offset %d is outside the arena" % (t.name, m, t.mem_id, t.offset))
            if t.offset % alignment:
                raise PlanError("tensor %s (values[%d]) offset %d is not %d-byte aligned" % (t.name, m, t.offset, alignment))
    for mem_id in range(1, len(sizes) + 1):
        mine = [b for b in bufs if ir.tensor(b.owner).mem_id == mem_id]
        offsets = {b.owner: ir.tensor(b.owner).offset for b in mine}
        verify_placement(mine, offsets, sizes[mem_id - 1], alignment, lambda b: ir.tensor(b.owner).name)


def verify_placement(bufs, offsets, size, alignment, name=lambda b: "values[%d]" % b.owner):
    """Check buffers placed in one arena of `size` bytes: inside, aligned, and
    no two alive at the same time sharing a byte."""
    for b in bufs:
        off = offsets[b.owner]
        if off < 0 or off + b.nbytes > size or off % alignment:
            raise PlanError(
                "%s at offset %d (+%d bytes) is outside the %d-byte arena or not %d-aligned" % (name(b), off, b.nbytes, size, alignment)
            )
    spans = sorted(bufs, key=lambda b: offsets[b.owner])
    for i, x in enumerate(spans):  # sweep by offset: only neighbours that start before x ends can collide
        x_off = offsets[x.owner]
        for y in spans[i + 1 :]:
            y_off = offsets[y.owner]
            if y_off >= x_off + x.nbytes:
                break
            if x.nbytes and y.nbytes and x.overlaps(y) and y_off < x_off + x.extent(y) and x_off < y_off + y.extent(x):
                raise PlanError(
                    "tensors %s and %s are alive together (steps %d..%d, %d..%d) but share bytes"
                    % (name(x), name(y), x.start, x.end, y.start, y.end)
                )

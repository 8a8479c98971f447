"""Ahead-of-time memory planning: every non-constant tensor gets an offset in
one arena (memory id 1) so that tensors alive at the same time never overlap.

Lifetimes are [first instruction that writes or reads, last instruction that
reads] over the instruction list; method inputs live from the start and
outputs to the end. An alias (a view) shares its base's storage, so the base
lives as long as any of its views. Placement is greedy by size, largest first,
each tensor at the lowest aligned offset that fits between the tensors already
placed whose lifetimes overlap its own (TFLite Micro's planner does the same).
"""

from dataclasses import dataclass


@dataclass
class Lifetime:
    start: int
    end: int  # inclusive

    def overlaps(self, other):
        return self.start <= other.end and other.start <= self.end


def _align(n, alignment):
    return (n + alignment - 1) // alignment * alignment


def lifetimes(ir, preserve_inputs=True):
    """value index (storage owner) -> Lifetime, for every planned tensor.

    With preserve_inputs, method inputs live to the end, so execute() can be
    called again without setting them again; otherwise their bytes are reused
    after their last read (ExecuTorch's default).
    """
    n = len(ir.instructions)
    spans = {}

    def touch(index, step):
        owner = ir.storage_of(index)
        t = ir.tensor(owner)
        if t is None or t.constant is not None:
            return
        span = spans.get(owner)
        if span is None:
            spans[owner] = Lifetime(step, step)
        else:
            span.start = min(span.start, step)
            span.end = max(span.end, step)

    for i in ir.inputs:
        touch(i, -1)
    for step, ins in enumerate(ir.instructions):
        for a in ins.args:
            v = ir.values[a]
            items = v.payload if v.kind in ("TensorList", "OptionalTensorList") else [a]
            for item in items:
                if ir.tensor(item) is not None:
                    touch(item, step)
    for o in ir.outputs:
        touch(o, n)
    if preserve_inputs:
        for i in ir.inputs:
            touch(i, n)
    return spans


def plan(ir, alignment=16, preserve_inputs=True):
    """Assign (mem_id 1, offset) to every planned tensor and its aliases.

    Returns the arena size in bytes (also stored as ir.arena_sizes = [size]).
    """
    spans = lifetimes(ir, preserve_inputs)
    order = sorted(spans, key=lambda i: (-ir.tensor(i).nbytes, spans[i].start, i))
    placed = []  # (offset, end offset, lifetime)
    size = 0
    for idx in order:
        t = ir.tensor(idx)
        need = _align(t.nbytes, alignment)
        offset = 0
        for start, end, _ in sorted((p for p in placed if p[2].overlaps(spans[idx])), key=lambda p: (p[0], p[1])):
            if offset + need <= start:
                break
            offset = max(offset, _align(end, alignment))
        t.mem_id, t.offset = 1, offset
        placed.append((offset, offset + t.nbytes, spans[idx]))
        size = max(size, _align(offset + t.nbytes, alignment))
    for v in ir.values:
        if v.kind == "Tensor" and v.payload.alias_of is not None:
            base = ir.tensor(ir.storage_of(v.payload.alias_of))
            v.payload.mem_id, v.payload.offset = base.mem_id, base.offset
    ir.arena_sizes = [size] if spans else []
    verify(ir, spans)
    return size


class PlanError(AssertionError):
    """The memory plan is wrong: two live tensors overlap, or one is out of bounds."""


def verify(ir, spans=None):
    """Check that no two tensors alive at the same time share bytes."""
    spans = lifetimes(ir, preserve_inputs=False) if spans is None else spans
    items = [(i, ir.tensor(i), spans[i]) for i in spans]
    for i, t, _ in items:
        if t.mem_id != 1 or t.offset < 0 or t.offset + t.nbytes > (ir.arena_sizes or [0])[0]:
            raise PlanError("tensor %s (values[%d]) is outside the arena" % (t.name, i))
    for a in range(len(items)):
        i, t, life = items[a]
        for b in range(a + 1, len(items)):
            j, u, other = items[b]
            if life.overlaps(other) and t.offset < u.offset + u.nbytes and u.offset < t.offset + t.nbytes and t.nbytes and u.nbytes:
                raise PlanError("tensors %s and %s are alive together (steps %s, %s) but share bytes" % (t.name, u.name, life, other))

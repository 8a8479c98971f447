"""What the memory planner plans: buffers with sizes and lifetimes.

A buffer is the storage of one or more tensors: a tensor and its views
(aliases) always share one; an elementwise op may also write its output over
an input that dies at that instruction (in place), when both have the same
shape and dtype, so the output joins the input's buffer. A narrowing op
(NARROW_INPLACE_OPS: float32 -> int8 quantization) may write its output over
the start of its dying input: the buffer then keeps the input's size up to
that instruction and only the output's bytes after it (Buffer.tail_from),
so a model's float input and its int8 copy need no more than the float one.

Lifetimes are inclusive instruction ranges [first write or read, last read];
a buffer alive across a loop's start or end spans the whole loop; method
inputs start at -1, method outputs end at len(instructions), and
mutable buffers (ir.state) span the whole method: nothing else ever takes
their bytes.
"""

from dataclasses import dataclass, field

# Out-variant ops whose kernels compute out[i] from in[i] of a same-shaped
# input, reading element i before writing it (tests/test_memory_plan.py runs
# each in place). Their output may take over an input that dies there.
INPLACE_OPS = frozenset(
    "aten::" + op
    for op in (
        "add.out",
        "add.Scalar_out",
        "sub.out",
        "sub.Scalar_out",
        "rsub.Scalar_out",
        "mul.out",
        "mul.Scalar_out",
        "div.out",
        "div.Scalar_out",
        "relu.out",
        "sigmoid.out",
        "tanh.out",
        "hardtanh.out",
        "clamp.out",
        "neg.out",
        "exp.out",
        "gelu.out",
        "silu.out",
        "hardswish.out",
        "hardsigmoid.out",
        "leaky_relu.out",
        "elu.out",
        "abs.out",
        "sqrt.out",
        "rsqrt.out",
        "reciprocal.out",
        "clone.out",
    )
)

# Out-variant ops whose kernels read element i (4 bytes) before writing
# element i (1 byte) of a same-shaped, narrower output, in order: writing
# byte i only overwrites input bytes already read. Their output may start
# over an input that dies there (tests/test_memory_plan.py runs it so).
NARROW_INPLACE_OPS = frozenset(("mpy_et_quant::quantize_per_tensor.out",))


@dataclass
class Buffer:
    owner: int  # value index of the tensor that owns the storage
    nbytes: int
    start: int
    end: int  # inclusive
    members: list = field(default_factory=list)  # value indices placed at the same offset
    mem_id: int = 1
    tail_from: int = None  # after this instruction only tail_bytes are live (a narrowing output)
    tail_bytes: int = 0

    def overlaps(self, other):
        return self.start <= other.end and other.start <= self.end

    def extent(self, other):
        """The bytes of this buffer (from its offset) that `other`, alive at
        some of the same instructions, can meet: all of them, or only the
        narrowing output's when other starts after the input died."""
        if self.tail_from is not None and other.start > self.tail_from:
            return self.tail_bytes
        return self.nbytes


def outputs_of(ir, ins):
    """Value indices an instruction writes: its return slot (a tensor or a TensorList)."""
    last = ir.values[ins.args[-1]]
    return list(last.payload) if last.kind == "TensorList" else [ins.args[-1]]


def _tensor_items(ir, a):
    v = ir.values[a]
    items = v.payload if v.kind in ("TensorList", "OptionalTensorList") else [a]
    return [i for i in items if i is not None and ir.tensor(i) is not None]


def buffers(ir, preserve_inputs=False, inplace=True):
    """The buffers to plan, keyed by owner value index.

    Args:
        ir: the lowered ProgramIR.
        preserve_inputs: keep method inputs alive to the end (execute() may
            run again without setting them); otherwise later tensors reuse
            their bytes after the last read, as ExecuTorch does.
        inplace: let INPLACE_OPS write over a dying same-shaped input.
    """
    n = len(ir.instructions)
    touches = {}  # storage owner -> [first, last]
    for i in ir.inputs:
        touches.setdefault(ir.storage_of(i), [-1, -1])
    for step, ins in enumerate(ir.instructions):
        for a in ins.args:
            for item in _tensor_items(ir, a):
                owner = ir.storage_of(item)
                if ir.tensor(owner).constant is not None:
                    continue
                span = touches.setdefault(owner, [step, step])
                span[0], span[1] = min(span[0], step), max(span[1], step)
    for i in ir.state:  # mutable buffers hold their value from one execute() to the next
        touches[ir.storage_of(i)] = [-1, n]
    ends_late = set(ir.storage_of(o) for o in ir.outputs)
    ends_late.update(ir.storage_of(i) for i in ir.state)
    if preserve_inputs:
        ends_late.update(ir.storage_of(i) for i in ir.inputs)
    for owner in ends_late:
        if owner in touches:
            touches[owner][1] = n
    _across_loops(ir, touches)
    group = {owner: owner for owner in touches}  # in-place merges: owner -> group root
    tails = {}  # group root -> (instruction, bytes): a narrowing output over its input's start
    if inplace:
        for step, ins in enumerate(ir.instructions):
            _merge_inplace(ir, step, ins, touches, group, ends_late, tails)
    out = {}
    for owner, (start, end) in touches.items():
        root = group[owner]
        while group[root] != root:
            root = group[root]
        b = out.get(root)
        if b is None:
            b = out[root] = Buffer(root, ir.tensor(root).nbytes, start, end)
            if root in tails:
                b.tail_from, b.tail_bytes = tails[root]
        b.start, b.end = min(b.start, start), max(b.end, end)
        b.members.append(owner)
    for v_index, v in enumerate(ir.values):
        if v.kind == "Tensor" and v.payload.alias_of is not None:
            owner = ir.storage_of(v_index)
            if owner in group:
                root = group[owner]
                while group[root] != root:
                    root = group[root]
                out[root].members.append(v_index)
    return out


def _across_loops(ir, touches):
    """A loop (a backward JumpFalseCall: host_tools/lowering/map.py) runs its
    instructions again: a buffer alive when it starts, or read after it
    ends, keeps its bytes through the whole loop (until nested loops agree)."""
    loops = [(ins.jump, step) for step, ins in enumerate(ir.instructions) if ins.kind == "JumpFalseCall" and ins.jump <= step]
    changed = bool(loops)
    while changed:
        changed = False
        for lo, hi in loops:
            for span in touches.values():
                if span[0] <= hi and span[1] >= lo and (span[0] < lo or span[1] > hi):
                    new = [min(span[0], lo), max(span[1], hi)]
                    if new != span:
                        span[:] = new
                        changed = True


def _merge_inplace(ir, step, ins, touches, group, ends_late, tails):
    narrow = ins.op in NARROW_INPLACE_OPS
    if ins.op not in INPLACE_OPS and not narrow:
        return
    outs = outputs_of(ir, ins)
    if len(outs) != 1:
        return
    out = outs[0]
    t_out = ir.tensor(out)
    if t_out is None or t_out.alias_of is not None or touches.get(out, [None])[0] != step:
        return
    if narrow:  # the first argument only: the others are the kernel's tables
        args = ins.args[:1]
    else:
        args = ins.args[:-2]  # inputs (the out argument and the return slot are last)
    for a in args:
        if ir.values[a].kind != "Tensor":
            continue
        owner = ir.storage_of(a)
        t_in = ir.tensor(a)
        span = touches.get(owner)
        if span is None or span[1] != step or owner in ends_late or owner == out:
            continue
        if narrow:
            root = owner
            while group[root] != root:
                root = group[root]
            same_order = getattr(t_in, "dim_order", None) == getattr(t_out, "dim_order", None)
            if (
                t_in.sizes != t_out.sizes
                or not same_order
                or t_in.alias_of is not None
                or root in tails
                or ir.tensor(root).nbytes < t_out.nbytes
            ):
                continue
            tails[root] = (step, t_out.nbytes)
        elif t_in.sizes != t_out.sizes or t_in.dtype != t_out.dtype or ir.tensor(owner).nbytes != t_out.nbytes:
            continue
        group[out] = owner
        return


def lower_bound(bufs, alignment=1, steps=None):
    """Most bytes alive at one instruction (each buffer rounded to alignment).

    No placement can be smaller. Returns (bytes, step where it happens).
    """
    events = {}
    for b in bufs:
        size = _align(b.nbytes, alignment)
        events[b.start] = events.get(b.start, 0) + size
        if b.tail_from is not None and b.tail_from < b.end:  # a narrowing output keeps its bytes only
            tail = _align(b.tail_bytes, alignment)
            events[b.tail_from + 1] = events.get(b.tail_from + 1, 0) - (size - tail)
            size = tail
        events[b.end + 1] = events.get(b.end + 1, 0) - size
    best, at, live = 0, None, 0
    for step in sorted(events):
        live += events[step]
        if live > best:
            best, at = live, step
    return best, at


def _align(n, alignment):
    return (n + alignment - 1) // alignment * alignment

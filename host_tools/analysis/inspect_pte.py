"""What a .pte needs on the device: `mpy-et inspect` and host_tools.inspect().

Works on any ExecuTorch program (ours or ExecuTorch's exporter's): it reads
the values, instructions and memory plan with the device runtime's own
flatbuffer reader, derives each planned tensor's lifetime from the
instruction list, and loads the method on the host to predict the heap the
device keeps.
"""

from host_tools.analysis.mpy_sizes import UNIX
from mpy_et import Program, dtypes
from mpy_et import schema as S
from mpy_et.flatbuf import FlatReader
from mpy_et.method import operator_names

# MicroPython object sizes on the unix x64 port (64-bit words, 32-byte GC
# blocks), used to predict the heap a loaded method keeps.
_BLOCK = UNIX.block
_WORD = UNIX.word
# The Method object, its attribute table and fixed bookkeeping (calibrated on
# the unix port against tests/test_inspect.py's programs).
_METHOD_OVERHEAD = 448


def _blocks(n):
    return (n + _BLOCK - 1) // _BLOCK * _BLOCK


def read_plan(data, method="forward"):
    """Tensors, instructions, inputs and outputs of a method, from the file."""
    program = Program.load(data)
    r = program.reader
    plan = program._plans[method]
    start, n = r.vector(plan, S.EXECUTION_PLAN_VALUES, 4, "values")
    tensors, lists = {}, {}
    for i in range(n):
        ev = r.table_at(start, i, "values")
        tag = r.scalar(ev, S.EVALUE_VAL_TYPE, FlatReader.u8, 0, "values")
        pos = r.subtable(ev, S.EVALUE_VAL, "values")
        if tag == S.KERNEL_TYPES_TENSOR:
            s, k = r.vector(pos, S.TENSOR_SIZES, 4, "sizes")
            sizes = r.ints(s, k, "i")
            dtype = r.scalar(pos, S.TENSOR_SCALAR_TYPE, FlatReader.u8, 0, "dtype")
            nbytes = dtypes.itemsize(dtype)
            for d in sizes:
                nbytes *= d
            alloc = r.subtable(pos, S.TENSOR_ALLOCATION_INFO, "alloc")
            mem = off = None
            if alloc:
                mem = r.scalar(alloc, S.ALLOCATION_DETAILS_MEMORY_ID, FlatReader.u32, 0, "mem")
                off = r.scalar(alloc, S.ALLOCATION_DETAILS_MEMORY_OFFSET_LOW, FlatReader.u32, 0, "off")
                off += r.scalar(alloc, S.ALLOCATION_DETAILS_MEMORY_OFFSET_HIGH, FlatReader.u32, 0, "off") << 32
            state = bool(alloc) and r.scalar(pos, S.TENSOR_DATA_BUFFER_IDX, FlatReader.u32, 0, "idx") > 0  # a mutable buffer
            tensors[i] = {"sizes": list(sizes), "dtype": dtype, "nbytes": nbytes, "mem_id": mem, "offset": off, "state": state}
        elif tag in (S.KERNEL_TYPES_TENSOR_LIST, S.KERNEL_TYPES_OPTIONAL_TENSOR_LIST):
            s, k = r.vector(pos, S.TENSOR_LIST_ITEMS, 4, "items")
            lists[i] = [j for j in r.ints(s, k, "i") if j >= 0]
    ops = operator_names(r, plan, "method")
    instructions = []
    s, n_chains = r.vector(plan, S.EXECUTION_PLAN_CHAINS, 4, "chains")
    if n_chains:
        chain = r.table_at(s, 0, "chain")
        si, ni = r.vector(chain, S.CHAIN_INSTRUCTIONS, 4, "instructions")
        io_inputs = r.vector(plan, S.EXECUTION_PLAN_INPUTS, 4, "inputs")
        written = {_place(tensors, j) for j in r.ints(io_inputs[0], io_inputs[1], "i")}
        for i in range(ni):
            ins = r.table_at(si, i, "instruction")
            tag = r.scalar(ins, S.INSTRUCTION_INSTR_ARGS_TYPE, FlatReader.u8, 0, "tag")
            if tag == S.INSTRUCTION_ARGUMENTS_DELEGATE_CALL:  # inputs, then outputs: those whose bytes nothing wrote yet
                pos = r.subtable(ins, S.INSTRUCTION_INSTR_ARGS, "call")
                sa, na = r.vector(pos, S.DELEGATE_CALL_ARGS, 4, "args")
                args = list(r.ints(sa, na, "i"))
                outs = [a for a in args if _place(tensors, a) is not None and _place(tensors, a) not in written]
                written.update(_place(tensors, a) for a in outs)
                index = r.scalar(pos, S.DELEGATE_CALL_DELEGATE_INDEX, FlatReader.i32, 0, "delegate")
                instructions.append(("delegate:" + program.backend_ids(method)[index], args, outs))
                continue
            pos = r.subtable(ins, S.INSTRUCTION_INSTR_ARGS, "call")
            if tag == S.INSTRUCTION_ARGUMENTS_MOVE_CALL:  # torch.cond: a branch's result into the cond's output
                a, b = (r.scalar(pos, slot, FlatReader.i32, 0, "move") for slot in (S.MOVE_CALL_MOVE_FROM, S.MOVE_CALL_MOVE_TO))
                written.update(_place(tensors, o) for o in [b])
                instructions.append(("MoveCall", [a, b], [b]))
                continue
            if tag == S.INSTRUCTION_ARGUMENTS_JUMP_FALSE_CALL:
                instructions.append(("JumpFalseCall", [r.scalar(pos, S.JUMP_FALSE_CALL_COND_VALUE_INDEX, FlatReader.i32, 0, "jump")], []))
                continue
            if tag != S.INSTRUCTION_ARGUMENTS_KERNEL_CALL:
                continue
            op = r.scalar(pos, S.KERNEL_CALL_OP_INDEX, FlatReader.i32, 0, "op")
            sa, na = r.vector(pos, S.KERNEL_CALL_ARGS, 4, "args")
            raw = r.ints(sa, na, "i")
            args = []
            for a in raw:
                args.extend(lists.get(a, [a]))
            outs = lists.get(raw[-1], [raw[-1]]) if raw else []  # the return slot names the outputs
            written.update(_place(tensors, o) for o in outs)
            instructions.append((ops[op], args, outs))
            if ops[op] == "aten::copy_" and raw and raw[0] in tensors:  # ExecuTorch's write-back of a mutable buffer
                tensors[raw[0]]["state"] = True
    io = {}
    for key, slot in (("inputs", S.EXECUTION_PLAN_INPUTS), ("outputs", S.EXECUTION_PLAN_OUTPUTS)):
        s, k = r.vector(plan, slot, 4, key)
        io[key] = list(r.ints(s, k, "i"))
    s, k = r.vector(plan, S.EXECUTION_PLAN_NON_CONST_BUFFER_SIZES, 8, "sizes")
    arenas = [r.i64(s + 8 * j, "sizes") for j in range(1, k)]
    return program, tensors, instructions, io, arenas


def _place(tensors, i):
    """(memory id, offset) of value i's planned bytes (None: not planned)."""
    t = tensors.get(i)
    return None if t is None or t["mem_id"] is None else (t["mem_id"], t["offset"])


def lifetimes(tensors, instructions, io):
    """Live intervals of the planned bytes, from the instruction list alone.

    Several values may name the same bytes (a view, an in-place output), so
    liveness is followed per place (memory id, offset): a segment starts where
    an instruction writes there (an output, named by the return slot; inputs
    are written before step 0) and lasts to the last read before the next
    write (outputs are read after the last step); state (mutable buffers)
    is live throughout. Returns a list of {"value", "start", "end", "mem_id",
    "offset", "nbytes"} segments.
    """
    n = len(instructions)
    events = {}  # (mem_id, offset) -> [(step, is_write, value)]

    def note(i, step, write):
        t = tensors.get(i)
        if t is not None and t["mem_id"] is not None and t["nbytes"]:
            events.setdefault((t["mem_id"], t["offset"]), []).append((step, write, i))

    for i in io["inputs"]:
        note(i, -1, True)
    for step, (_, args, outs) in enumerate(instructions):
        for a in args:
            if a not in outs:
                note(a, step, False)
        for o in outs:  # an out also passed as an input (a band written in place, patch.py) is updated, not rewritten
            note(o, step, args.count(o) <= 2)
    for o in io["outputs"]:
        note(o, n, False)
    segments = []
    for i, t in tensors.items():  # state keeps its value from one execute() to the next: one segment
        if t.get("state") and t["mem_id"] is not None and t["nbytes"] and (t["mem_id"], t["offset"]) in events:
            evs = events.pop((t["mem_id"], t["offset"]))
            nbytes = max([t["nbytes"]] + [tensors[v]["nbytes"] for _, _, v in evs])
            segments.append(
                {"value": i, "start": -1, "end": n, "mem_id": t["mem_id"], "offset": t["offset"], "nbytes": nbytes, "written": True}
            )
    for (mem, off), evs in events.items():
        evs.sort(key=lambda e: (e[0], e[1]))  # at one step reads come before the write
        seg = None
        for step, write, i in evs:
            if write or seg is None:
                seg = {"value": i, "start": step, "end": step, "mem_id": mem, "offset": off, "nbytes": tensors[i]["nbytes"]}
                seg["written"] = write
                segments.append(seg)
            else:
                seg["end"] = step
                seg["nbytes"] = max(seg["nbytes"], tensors[i]["nbytes"])
    return _views_into_writes(segments)


def _views_into_writes(segments):
    """A place only ever read (a view inside a larger write: planning/views.py)
    keeps the write that holds its bytes alive to its last read."""
    writes = [g for g in segments if g["written"]]
    kept = []
    for g in segments:
        holder = None
        if not g["written"]:
            for w in writes:
                inside = (
                    w["mem_id"] == g["mem_id"] and w["offset"] <= g["offset"] and g["offset"] + g["nbytes"] <= w["offset"] + w["nbytes"]
                )
                if inside and w["start"] <= g["start"] and (holder is None or w["start"] > holder["start"]):
                    holder = w
        if holder is None:
            kept.append(g)
        else:
            holder["end"] = max(holder["end"], g["end"])
    for g in kept:
        del g["written"]
    return kept


def live_bytes(segments, n_steps):
    """Bytes in use at each step: the union of the byte ranges of the segments
    alive there, per memory id."""
    out = []
    for step in range(-1, n_steps + 1):
        ranges = {}
        for g in segments:
            if g["start"] <= step <= g["end"]:
                ranges.setdefault(g["mem_id"], []).append((g["offset"], g["offset"] + g["nbytes"]))
        total = 0
        for rs in ranges.values():
            end = None
            for lo, hi in sorted(rs):
                if end is None or lo >= end:
                    total += hi - lo
                    end = hi
                elif hi > end:
                    total += hi - end
                    end = hi
        out.append(total)
    return out


def _mpy_size(obj, seen, skip):
    return UNIX.size(obj, seen, skip)


# The viper soft-float steps of the unix port (portable_kernels.util.emitters.WIDE,
# false on the host) keep more than the bytecode steps the host builds: a
# control array and a longer context per call, and shared scratch words.
_FAST_MM = ("aten::mm.out", "aten::addmm.out", "aten::bmm.out")
_FAST_CONV = "aten::convolution.out"
_FAST_EXTREME = ("aten::amax.out", "aten::amin.out")


def _recording_registry(calls):
    """The kernel registry with every kernel wrapped to note (op, args)."""
    import sys
    import types

    from mpy_et.kernels import _import
    from portable_kernels.registry import KERNELS

    mod = types.ModuleType("_mpy_et_inspect_kernels")
    reg = {}
    for i, (op, (module, fn)) in enumerate(sorted(KERNELS.items())):

        def wrap(*args, _op=op, _entry=(module, fn)):
            got = _import(*_entry)(*args)
            calls.append((_op, args, got))
            return got

        setattr(mod, "k%d" % i, wrap)
        reg[op] = (mod.__name__, "k%d" % i)
    sys.modules[mod.__name__] = mod
    return reg


def _fast_path_extra(calls):
    """Bytes the unix port's viper steps keep beyond the host's bytecode steps
    (mirrors op_mm.viper_step and op_convolution._viper_step; transposed
    convolutions are not counted)."""
    from portable_kernels.util import scratch

    extra = 0
    roles = {}
    bytecode_mm = 0  # products left on the bytecode step: they keep the shared float lists

    def role(name, words):
        roles[name] = max(roles.get(name, 0), words)

    for op, args, got in calls:
        out = args[-1]
        if getattr(out, "dtype", None) != dtypes.FLOAT or not out.numel:
            bytecode_mm += op in _FAST_MM
            continue
        if op in _FAST_MM:
            a = args[1] if op == "aten::addmm.out" else args[0]
            k = a.sizes[-1]
            if (op == "aten::addmm.out" and (args[4] != 1 or args[3] not in (0, 1))) or not (0 < k < 0x4000 and a.numel):
                bytecode_mm += 1
                continue
            # the viper step: its control words and tuple, and [build, args] for the
            # bytecode step, built only on an inf or NaN (its tuple is not kept)
            n_args = 11 if op == "aten::addmm.out" else 7
            extra += _blocks(_WORD * 4) + _blocks(4 * 9) + _blocks(_WORD * 10)
            extra += _blocks(_WORD * 4) + _blocks(_WORD * 2) + _blocks(_WORD * (2 + n_args)) - _blocks(_WORD * (2 + len(got[1])))
            rows = k if k <= 256 else 1  # f32_mm_viper.ROW_WORDS: longer rows are decoded as read
            role("mm mantissas", rows)
            role("mm exponents", rows)
        elif op in _FAST_EXTREME:  # one walk array instead of the bytecode step's lists
            from portable_kernels.util.reduce_extreme import extreme, extreme_walk

            x = args[0]
            walk = extreme_walk(x, args[1], args[2], out, "amax")
            if walk is not None:
                ko, ro = extreme(x, args[1], args[2], out, "amax")
                fast = _blocks(_WORD * 5) + _blocks(_WORD * 4) + _blocks(4 * len(walk))
                extra += fast - _blocks(_WORD * 6) - _mpy_size(ko, set(), set()) - _mpy_size(ro[1:], set(), set())
        elif op == _FAST_CONV and not args[6]:
            weight, groups = args[1], args[8]
            k = 1
            for d in weight.sizes[1:]:
                k *= d
            opg = weight.sizes[0] // groups
            if k >= 0x4000:
                continue
            extra += _blocks(_WORD * 4) + _blocks(4 * 19) + _blocks(_WORD * 12)
            if weight.sizes[1] == 1 and opg == 1:
                role("conv weight mantissas", k)
                role("conv weight exponents", k)
            else:
                most = max(1, 8192 // k)  # f32_conv_viper.chunk_channels
                chunks = (opg + most - 1) // most
                chunk = (opg + chunks - 1) // chunks
                for name, words in (("conv mantissas", k), ("conv exponents", k)):
                    role(name, words)
                for name in ("conv weight mantissas", "conv weight exponents"):
                    role(name, chunk * k)
    if not bytecode_mm:  # no step keeps the products' shared float lists
        for name in ("mm acc", "mm b rows"):
            pool = scratch._POOLS.get(name)
            if pool is not None:
                extra -= _mpy_size(pool, set(), set())
    return extra + sum(_blocks(_WORD * 4) + _blocks(4 * w) for w in roles.values())


def method_objects(m, layout, skip=(), roots=()):
    """Bytes a loaded method's objects hold (its planned buffers included) in `layout`;
    roots: objects its steps reach through a module (shared scratch), counted once."""
    seen = set()
    skip = set(skip)
    total = sum(layout.blocks(layout.word * 4) + layout.blocks(len(b)) for b in m.buffers)
    seen.update(id(b) for b in m.buffers)
    for part in (m._steps, m._ctxs):  # preallocated at their final length
        seen.add(id(part))
        total += layout.blocks(layout.word * 4) + layout.blocks(layout.word * len(part)) + sum(layout.size(x, seen, skip) for x in part)
    for part in (m._no_step, m._inputs, m._outputs, m.planned_sizes, m._state, m._dynamic):  # mpy_et/state.py, dynamic.py, if any
        total += layout.size(part, seen, skip)
    for part in roots:
        total += layout.size(part, seen, skip)
    total += layout.blocks(layout.word * 4) + layout.blocks(2 * layout.word * len(m._op_names))
    return total + sum(layout.blocks(len(n) + 17) for n in m._op_names)


def predicted_load_heap(program, method="forward", kernels=None):
    """Heap a loaded method keeps on the unix port, arena included, predicted by
    loading it on the host and sizing the objects as MicroPython lays them out
    (plus what the port's viper steps keep: _fast_path_extra)."""
    from portable_kernels.util import scratch

    scratch.reset()  # count the shared scratch lists this program's layers need, once
    calls = []
    m = program.load_method(method, registry=_recording_registry(calls), kernels=kernels)
    skip = {id(program.buf), id(program), id(program.reader)}
    return method_objects(m, UNIX, skip) + _METHOD_OVERHEAD + _fast_path_extra(calls)


def inspect(data, method="forward", kernels=None, target=None):
    """A dict describing what a .pte needs on the device.

    Keys: planned_bytes, memory_ids (bytes per memory id 1..n),
    lower_bound_bytes (most bytes live at one step), plan_efficiency
    (planned / lower bound), constant_bytes, operators, instructions,
    predicted_load_heap_bytes (what load_method keeps on the unix port,
    arena included), bands_in_place (outputs updated in place: the bands of
    a patched stage), steps (live bytes per step) and tensors (planned
    tensors with lifetime, memory id, offset and size, for plots).
    kernels: custom operators' kernels ({op: kernel}), if the program has any.
    target: a board ("cortex-m3", "cortex-m7"): adds "board", the runtime's
    own RAM predicted there (host_tools/analysis/board_ram.predict).
    """
    board = None
    if target is not None:
        from host_tools.analysis.board_ram import predict

        if kernels:
            raise ValueError("inspect(target=...) does not size custom operators' kernels")
        board = predict(data if isinstance(data, str) else bytes(data), target, method)
    program, tensors, instructions, io, arenas = read_plan(data, method)
    segments = lifetimes(tensors, instructions, io)
    live = live_bytes(segments, len(instructions))
    bound = max(live, default=0)
    planned = sum(arenas)
    from host_tools.quantize import io as io_quant

    return {
        "io_quantization": io_quant.read(program),
        "method": method,
        "planned_bytes": planned,
        "memory_ids": {j + 1: size for j, size in enumerate(arenas)},
        "lower_bound_bytes": bound,
        "plan_efficiency": planned / bound if bound else 1.0,
        "constant_bytes": program.constant_size,
        "program_bytes": len(data) if not isinstance(data, str) else None,
        "operators": sorted({op for op, _, _ in instructions if "::" in op}),  # not MoveCall, JumpFalseCall
        "instructions": len(instructions),
        "bands_in_place": sum(1 for _, args, outs in instructions for o in outs if args.count(o) > 2),  # patch.py's writes
        "predicted_load_heap_bytes": predicted_load_heap(program, method, kernels),
        "board": board,
        "steps": live,
        "tensors": sorted(segments, key=lambda g: (g["mem_id"], g["start"], g["offset"])),
    }


def report(info):
    """The readable form of inspect()'s dict."""
    lines = [
        "method %s: %d instructions, %d operators" % (info["method"], info["instructions"], len(info["operators"])),
        "planned arena: %d bytes (%s); lower bound %d bytes; plan / bound = %.3f"
        % (
            info["planned_bytes"],
            ", ".join("memory id %d: %d B" % kv for kv in info["memory_ids"].items()) or "none",
            info["lower_bound_bytes"],
            info["plan_efficiency"],
        ),
        "constants: %d bytes (read in place from the program)" % info["constant_bytes"],
        "predicted heap kept by load_method (unix port, arena included): %d bytes" % info["predicted_load_heap_bytes"],
        "operators: %s" % ", ".join(info["operators"]),
    ]
    if info.get("bands_in_place"):
        lines.insert(2, "patched: %d bands written in place into their stage outputs (export(patch=...))" % info["bands_in_place"])
    if info.get("io_quantization"):
        from host_tools.quantize import io as io_quant

        lines += io_quant.describe(info["io_quantization"])
    if info.get("board"):
        from host_tools.analysis.board_ram import describe

        lines += describe(info["board"], info["planned_bytes"])
    return "\n".join(lines)


def plot(info, path):
    """Draw the plan: each tensor a box over (instruction step x offset)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise RuntimeError("--plot needs matplotlib: pip install 'mpy-et[bench]' or pip install matplotlib") from e
    ids = sorted(info["memory_ids"]) or [1]
    fig, axes = plt.subplots(len(ids), 1, figsize=(10, 3 * len(ids)), squeeze=False)
    for ax, mem in zip(axes[:, 0], ids):
        for t in info["tensors"]:
            if t["mem_id"] == mem:
                ax.add_patch(plt.Rectangle((t["start"] - 0.45, t["offset"]), t["end"] - t["start"] + 0.9, t["nbytes"], alpha=0.5, ec="k"))
        ax.set_xlim(-1.5, info["instructions"] + 0.5)
        ax.set_ylim(0, max(info["memory_ids"].get(mem, 1), 1))
        ax.set_xlabel("instruction")
        ax.set_ylabel("offset (bytes), memory id %d" % mem)
    axes[0, 0].set_title("%s: %d B planned, lower bound %d B" % (info["method"], info["planned_bytes"], info["lower_bound_bytes"]))
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def summary(data, kernels=None):
    """A few lines: methods, operators, instruction count, planned and constant
    bytes. kernels: custom operators' kernels ({op: kernel}), if the program has any."""
    program = Program.load(data)
    lines = []
    for name in program.method_names:
        m = program.load_method(name, kernels=kernels)
        ops = sorted({op for _, op in m.step_ops()})
        lines.append(
            "method %s: %d inputs, %d outputs, %d instructions, planned arena %d bytes, constants %d bytes"
            % (name, m.inputs_size(), m.outputs_size(), len(m.step_ops()), m.planned_bytes, program.constant_size)
        )
        lines.append("  operators: %s" % ", ".join(ops))
    from host_tools.quantize import io as io_quant

    io = io_quant.read(program)
    if io:
        lines += ["  " + line for line in io_quant.describe(io)]
    return "\n".join(lines)

"""Write a ProgramIR as an ExecuTorch-compatible .pte file.

Layout: flatbuffer (identifier ET12) with the 32-byte extended header `eh00`
inserted after byte 8, padding, then one segment holding every constant,
each aligned (then, if any, one holding the initial values of mutable
buffers, the named data, and one per distinct backend delegate blob).
Constant data is never inside the flatbuffer, so a device can use it in
place (flash, ROMFS) without copying.
"""

from host_tools.lowering import fbs
from host_tools.lowering.flatbuffer_writer import FlatbufferWriter

HEADER_MAGIC = b"eh00"
HEADER_LENGTH = 32  # magic, length, program size, segment base, segment size


def _align(n, alignment):
    return (n + alignment - 1) // alignment * alignment


def _tensor_table(t, buffer_idx):
    table = {
        "scalar_type": t.dtype,
        "sizes": list(t.sizes),
        "dim_order": list(t.dim_order) if t.dim_order is not None else list(range(len(t.sizes))),
        "data_buffer_idx": buffer_idx,
    }
    if t.constant is None:
        low, high = t.offset & 0xFFFFFFFF, t.offset >> 32
        table["allocation_info"] = {"memory_id": t.mem_id, "memory_offset_low": low, "memory_offset_high": high}
    if t.dynamic:  # sizes are the bound; the device resizes at set_input
        table["shape_dynamism"] = 1
    if t.fqn is not None:  # a mutable buffer: its name, as ExecuTorch's emit_mutable_buffer_names
        table["extra_tensor_info"] = {"fully_qualified_name": t.fqn}
    return table


def _segment(irs, alignment, data_of, key_of=lambda i, data: data):
    """Lay out one data segment of the tensors data_of(tensor) gives bytes
    for, in every method (each distinct key once: methods share them);
    return (segment bytes, offsets, per method {value index: data_buffer_idx})."""
    blob = bytearray()
    offsets = [0]  # entry 0 is reserved: data_buffer_idx 0 means none
    by_key = {}
    index_of = []
    for ir in irs:
        mine = {}
        for i, v in enumerate(ir.values):
            data = data_of(v.payload) if v.kind == "Tensor" else None
            if data is None:
                continue
            key = key_of(v.payload, data)
            if key not in by_key:
                blob.extend(b"\0" * (_align(len(blob), alignment) - len(blob)))
                by_key[key] = len(offsets)
                offsets.append(len(blob))
                blob.extend(data)
            mine[i] = by_key[key]
        index_of.append(mine)
    return bytes(blob), offsets, index_of


def _constants(irs, alignment):
    """The constant segment: (segment bytes, offsets, per method value -> buffer idx)."""
    return _segment(irs, alignment, lambda t: t.constant)


def _initial_values(irs, alignment):
    """Initial values of mutable buffers (ExecuTorch's mutable_data_segments[0]);
    a buffer several methods share (same name) is stored once."""
    return _segment(irs, alignment, lambda t: t.initial, lambda t, data: t.fqn)


def _value_table(v, i, buffer_idx):
    if v.kind == "Null":
        return ("Null", {})
    if v.kind == "Tensor":
        return ("Tensor", _tensor_table(v.payload, buffer_idx.get(i, 0)))
    field = {"Int": "int_val", "Bool": "bool_val", "Double": "double_val", "String": "string_val"}.get(v.kind, "items")
    return (v.kind, {field: v.payload})


def serialize(ir, method_name="forward", alignment=16, segment_alignment=16, named_data=None):
    """Return the .pte bytes for a planned ProgramIR.

    Args:
        ir: a ProgramIR whose tensors were placed by memory_plan.plan(), or a
            list of (method name, ProgramIR) for a program of several methods
            (constants with the same bytes are stored once for all of them).
        method_name: name of the single method (when ir is one ProgramIR).
        alignment: alignment of each constant inside the segment.
        segment_alignment: alignment of the segment in the file.
        named_data: {key: bytes}: ExecuTorch's named data, each in a
            segment of its own after the constants.
    """
    methods = ir if isinstance(ir, list) else [(method_name, ir)]
    irs = [m for _, m in methods]
    blob, offsets, buffer_idx = _constants(irs, alignment)
    segments = [{"offset": 0, "size": len(blob)}] if len(offsets) > 1 or named_data else []
    mutable = []
    initial, init_offsets, init_idx = _initial_values(irs, alignment)
    if len(init_offsets) > 1:  # ExecuTorch: a segment of their own, listed in mutable_data_segments[0]
        if not segments:
            segments.append({"offset": 0, "size": 0})
        blob += b"\0" * (_align(len(blob), alignment) - len(blob))
        mutable.append({"segment_index": len(segments), "offsets": init_offsets})
        segments.append({"offset": len(blob), "size": len(initial)})
        blob += initial
    named = []
    for key, data in sorted((named_data or {}).items()):
        blob += b"\0" * (_align(len(blob), alignment) - len(blob))
        named.append({"key": key, "segment_index": len(segments)})
        segments.append({"offset": len(blob), "size": len(data)})
        blob += bytes(data)
    delegates = []  # per method, its BackendDelegate tables (each distinct blob a segment of its own)
    blob_segment = {}  # blob bytes -> segment index: calls with the same blob share it (as ExecuTorch's emitter)
    for m in irs:
        delegates.append([])
        for d in m.delegates:
            if not segments:
                segments.append({"offset": 0, "size": 0})
            data = bytes(d.processed)
            if data not in blob_segment:
                blob += b"\0" * (_align(len(blob), alignment) - len(blob))
                blob_segment[data] = len(segments)
                segments.append({"offset": len(blob), "size": len(data)})
                blob += data
            ref = {"location": 1, "index": blob_segment[data]}  # DataLocation.SEGMENT
            specs = [{"key": k, "value": list(v)} for k, v in d.compile_specs]
            delegates[-1].append({"id": d.backend_id, "processed": ref, "compile_specs": specs})
    plans = [_plan(name, m, {**c, **i}, dl) for (name, m), c, i, dl in zip(methods, buffer_idx, init_idx, delegates)]
    program = {
        "version": 0,
        "execution_plan": plans,
        "segments": segments,
        "constant_segment": {"segment_index": 0, "offsets": offsets},
    }
    if blob_segment:  # ExecuTorch's reader expects the (here empty) inline list beside delegates
        program["backend_delegate_data"] = []
    if mutable:
        program["mutable_data_segments"] = mutable
    if named:
        program["named_data"] = named
    flat = FlatbufferWriter(fbs.load()).serialize(program)
    return _with_header_and_segment(flat, blob, segment_alignment)


def _plan(method_name, ir, buffer_idx, delegates=()):
    """One ExecutionPlan table."""
    operators = []
    op_index = {}
    instructions = []
    for ins in ir.instructions:
        if ins.kind == "MoveCall":
            instructions.append({"instr_args": ("MoveCall", {"move_from": ins.args[0], "move_to": ins.args[1]})})
            continue
        if ins.kind == "JumpFalseCall":
            jump = {"cond_value_index": ins.args[0], "destination_instruction": ins.jump}
            instructions.append({"instr_args": ("JumpFalseCall", jump)})
            continue
        if ins.delegate is not None:
            instructions.append({"instr_args": ("DelegateCall", {"delegate_index": ins.delegate, "args": list(ins.args)})})
            continue
        if ins.op not in op_index:
            op_index[ins.op] = len(operators)
            name, _, overload = ins.op.partition(".")
            operators.append({"name": name, "overload": overload})
        call = {"op_index": op_index[ins.op], "args": list(ins.args)}
        instructions.append({"instr_args": ("KernelCall", call)})
    return {
        "name": method_name,
        "values": [{"val": _value_table(v, i, buffer_idx)} for i, v in enumerate(ir.values)],
        "inputs": list(ir.inputs),
        "outputs": list(ir.outputs),
        "chains": [{"inputs": list(ir.inputs), "outputs": list(ir.outputs), "instructions": instructions}],
        "operators": operators,
        "delegates": list(delegates),
        "non_const_buffer_sizes": [0] + list(ir.arena_sizes),
    }


def _with_header_and_segment(flat, blob, segment_alignment):
    program_size = len(flat) + HEADER_LENGTH
    base = _align(program_size, segment_alignment) if blob else 0
    header = (
        HEADER_MAGIC
        + HEADER_LENGTH.to_bytes(4, "little")
        + program_size.to_bytes(8, "little")
        + base.to_bytes(8, "little")
        + len(blob).to_bytes(8, "little")
    )
    root = int.from_bytes(flat[0:4], "little") + HEADER_LENGTH
    out = root.to_bytes(4, "little") + flat[4:8] + header + flat[8:]
    if blob:
        out += b"\0" * (base - len(out)) + blob
    return out

"""Write a ProgramIR as an ExecuTorch-compatible .pte file.

Layout: flatbuffer (identifier ET12) with the 32-byte extended header `eh00`
inserted after byte 8, padding, then one segment holding every constant,
each aligned. Constant data is never inside the flatbuffer, so a device can
use it in place (flash, ROMFS) without copying.
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
        "dim_order": list(range(len(t.sizes))),
        "data_buffer_idx": buffer_idx,
    }
    if t.constant is None:
        low, high = t.offset & 0xFFFFFFFF, t.offset >> 32
        table["allocation_info"] = {"memory_id": t.mem_id, "memory_offset_low": low, "memory_offset_high": high}
    return table


def _constants(ir, alignment):
    """Lay out the constant segment; return (segment bytes, offsets, value -> buffer idx)."""
    blob = bytearray()
    offsets = [0]  # entry 0 is reserved for non-constant tensors
    by_data = {}
    index_of = {}
    for i, v in enumerate(ir.values):
        if v.kind != "Tensor" or v.payload.constant is None:
            continue
        data = v.payload.constant
        if data not in by_data:
            blob.extend(b"\0" * (_align(len(blob), alignment) - len(blob)))
            by_data[data] = len(offsets)
            offsets.append(len(blob))
            blob.extend(data)
        index_of[i] = by_data[data]
    return bytes(blob), offsets, index_of


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
        ir: a ProgramIR whose tensors were placed by memory_plan.plan().
        method_name: name of the single method.
        alignment: alignment of each constant inside the segment.
        segment_alignment: alignment of the segment in the file.
        named_data: {key: bytes}: ExecuTorch's named data, each in a
            segment of its own after the constants.
    """
    blob, offsets, buffer_idx = _constants(ir, alignment)
    segments = [{"offset": 0, "size": len(blob)}] if len(offsets) > 1 or named_data else []
    named = []
    for key, data in sorted((named_data or {}).items()):
        blob += b"\0" * (_align(len(blob), alignment) - len(blob))
        named.append({"key": key, "segment_index": len(segments)})
        segments.append({"offset": len(blob), "size": len(data)})
        blob += bytes(data)
    operators = []
    op_index = {}
    instructions = []
    for ins in ir.instructions:
        if ins.op not in op_index:
            op_index[ins.op] = len(operators)
            name, _, overload = ins.op.partition(".")
            operators.append({"name": name, "overload": overload})
        call = {"op_index": op_index[ins.op], "args": list(ins.args)}
        instructions.append({"instr_args": ("KernelCall", call)})
    plan = {
        "name": method_name,
        "values": [{"val": _value_table(v, i, buffer_idx)} for i, v in enumerate(ir.values)],
        "inputs": list(ir.inputs),
        "outputs": list(ir.outputs),
        "chains": [{"inputs": list(ir.inputs), "outputs": list(ir.outputs), "instructions": instructions}],
        "operators": operators,
        "delegates": [],
        "non_const_buffer_sizes": [0] + list(ir.arena_sizes),
    }
    program = {
        "version": 0,
        "execution_plan": [plan],
        "segments": segments,
        "constant_segment": {"segment_index": 0, "offsets": offsets},
    }
    if named:
        program["named_data"] = named
    flat = FlatbufferWriter(fbs.load()).serialize(program)
    return _with_header_and_segment(flat, blob, segment_alignment)


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

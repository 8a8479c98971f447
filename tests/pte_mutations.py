"""Corrupted variants of a valid .pte, each with the error the runtime must give."""

import struct

from mpy_et import errors
from mpy_et import schema as S
from mpy_et.flatbuf import FlatReader

INVALID = errors.INVALID_PROGRAM


class Locator:
    """Find byte positions of fields in a .pte, with the runtime's own reader."""

    def __init__(self, data):
        self.data = data
        size = struct.unpack_from("<Q", data, 16)[0]
        self.r = r = FlatReader(data, size)
        self.root = r.table(r.u32(0, ""), "")
        start, _ = r.vector(self.root, S.PROGRAM_EXECUTION_PLAN, 4, "")
        self.plan = r.table_at(start, 0, "")

    def vector(self, table, slot):
        """(position of element 0, length)."""
        return self.r.vector(table, slot, 1, "")

    def value(self, i):
        start, _ = self.vector(self.plan, S.EXECUTION_PLAN_VALUES)
        ev = self.r.table_at(start, i, "")
        return self.r.subtable(ev, S.EVALUE_VAL, "")

    def first_value(self, tag):
        start, n = self.vector(self.plan, S.EXECUTION_PLAN_VALUES)
        for i in range(n):
            ev = self.r.table_at(start, i, "")
            if self.r.scalar(ev, S.EVALUE_VAL_TYPE, FlatReader.u8, 0, "") == tag:
                return i, self.r.subtable(ev, S.EVALUE_VAL, "")
        raise LookupError(tag)

    def _tensor(self, wanted, what):
        """The first Tensor value whose table passes wanted(table)."""
        start, n = self.vector(self.plan, S.EXECUTION_PLAN_VALUES)
        for i in range(n):
            ev = self.r.table_at(start, i, "")
            if self.r.scalar(ev, S.EVALUE_VAL_TYPE, FlatReader.u8, 0, "") == S.KERNEL_TYPES_TENSOR:
                t = self.r.subtable(ev, S.EVALUE_VAL, "")
                if wanted(t):
                    return t
        raise LookupError(what)

    def planned_tensor(self):
        """A planned tensor whose offset is written (nonzero)."""

        def wanted(t):
            alloc = self.r.subtable(t, S.TENSOR_ALLOCATION_INFO, "")
            return alloc and self.r.field(alloc, S.ALLOCATION_DETAILS_MEMORY_OFFSET_LOW, "")

        return self._tensor(wanted, "planned tensor")

    def constant_tensor(self):
        return self._tensor(lambda t: self.r.scalar(t, S.TENSOR_DATA_BUFFER_IDX, FlatReader.u32, 0, ""), "constant tensor")

    def constant_index(self):
        """Value index of the first constant tensor."""
        start, n = self.vector(self.plan, S.EXECUTION_PLAN_VALUES)
        for i in range(n):
            ev = self.r.table_at(start, i, "")
            if self.r.scalar(ev, S.EVALUE_VAL_TYPE, FlatReader.u8, 0, "") == S.KERNEL_TYPES_TENSOR:
                if self.r.scalar(self.r.subtable(ev, S.EVALUE_VAL, ""), S.TENSOR_DATA_BUFFER_IDX, FlatReader.u32, 0, ""):
                    return i
        raise LookupError("constant tensor")

    def kernel_call(self, k=0):
        start, _ = self.vector(self.plan, S.EXECUTION_PLAN_CHAINS)
        chain = self.r.table_at(start, 0, "")
        start, _ = self.vector(chain, S.CHAIN_INSTRUCTIONS)
        ins = self.r.table_at(start, k, "")
        return self.r.subtable(ins, S.INSTRUCTION_INSTR_ARGS, "")


def _put(data, pos, fmt, value):
    assert pos > 0, "field not present in this file"
    out = bytearray(data)
    struct.pack_into(fmt, out, pos, value)
    return bytes(out)


def mutations(data):
    """[(name, corrupted bytes, expected error code, message fragment)]."""
    loc = Locator(data)
    r = loc.r
    out = [
        ("wrong identifier", data[:4] + b"XT12" + data[8:], INVALID, "identifier"),
        ("too short", data[:6], INVALID, "at least 8"),
        ("header says longer", _put(data, 16, "<Q", len(data) + 100), INVALID, "truncated"),
    ]
    root_slot = bytearray(data)
    struct.pack_into("<I", root_slot, 0, len(data) + 4)
    out.append(("root past end", bytes(root_slot), INVALID, "past the end"))
    call = loc.kernel_call(0)
    args, _ = loc.vector(call, S.KERNEL_CALL_ARGS)
    out.append(("arg index out of range", _put(data, args, "<i", 99999), INVALID, "values[99999]"))
    _, n_args = loc.vector(call, S.KERNEL_CALL_ARGS)
    writes = bytearray(data)  # the first call's out and return slot: a constant (the step would write the program)
    struct.pack_into("<ii", writes, args + 4 * (n_args - 2), loc.constant_index(), loc.constant_index())
    out.append(("out is a constant", bytes(writes), INVALID, "constant tensor (data in the program)"))
    call1 = loc.kernel_call(1)  # op_index 0 is not written (flatbuffer default)
    out.append(("op index out of range", _put(data, r.field(call1, S.KERNEL_CALL_OP_INDEX, ""), "<i", 77), INVALID, "op_index 77"))
    vals = r.ref(loc.plan, S.EXECUTION_PLAN_VALUES, "")
    out.append(("values vector too long", _put(data, vals, "<I", 0x7FFFFFFF), INVALID, "runs past the end"))
    t = loc.planned_tensor()
    sizes, _ = loc.vector(t, S.TENSOR_SIZES)
    out.append(("absurd tensor size", _put(data, sizes, "<i", 0x7FFFFFFF), INVALID, "more data than"))
    out.append(("negative tensor size", _put(data, sizes, "<i", -3), INVALID, "negative size"))
    alloc = r.subtable(t, S.TENSOR_ALLOCATION_INFO, "")
    out.append(
        (
            "planned offset past arena",
            _put(data, r.field(alloc, S.ALLOCATION_DETAILS_MEMORY_OFFSET_LOW, ""), "<I", 10**9),
            INVALID,
            "past the end of memory id",
        )
    )
    out.append(("memory id out of range", _put(data, r.field(alloc, S.ALLOCATION_DETAILS_MEMORY_ID, ""), "<I", 9), INVALID, "memory_id 9"))
    bufs, _ = loc.vector(loc.plan, S.EXECUTION_PLAN_NON_CONST_BUFFER_SIZES)
    out.append(("absurd arena size", _put(data, bufs + 8, "<q", 1 << 40), INVALID, "absurd size"))
    ct = loc.constant_tensor()
    out.append(
        ("constant index out of range", _put(data, r.field(ct, S.TENSOR_DATA_BUFFER_IDX, ""), "<I", 5000), INVALID, "data_buffer_idx 5000")
    )
    cs = r.subtable(loc.root, S.PROGRAM_CONSTANT_SEGMENT, "")
    offs, _ = loc.vector(cs, S.SUBSEGMENT_OFFSETS_OFFSETS)
    out.append(("constant offset past segment", _put(data, offs + 8, "<Q", 1 << 33), INVALID, "past the constant segment"))
    segs = r.ref(loc.root, S.PROGRAM_SEGMENTS, "")
    seg = r.table_at(segs + 4, 0, "")
    out.append(("segment past end", _put(data, r.field(seg, S.DATA_SEGMENT_SIZE, ""), "<Q", 1 << 31), INVALID, "segments[0]"))
    out.append(("unsupported dtype", _put(data, r.field(t, S.TENSOR_SCALAR_TYPE, ""), "<b", 5), errors.NOT_SUPPORTED, "scalar type 5"))
    _, il = loc.first_value(S.KERNEL_TYPES_INT_LIST)
    items, n = loc.vector(il, S.INT_LIST_ITEMS)
    if n:
        out.append(("int list item out of range", _put(data, items, "<q", 123456), INVALID, "values[123456]"))
    step = max(1, len(data) // 40)
    for cut in list(range(0, len(data), step)) + [len(data) - 1]:
        out.append(("truncated at %d" % cut, data[:cut], INVALID, ""))
    return out

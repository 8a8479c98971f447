"""Write a flatbuffer from nested Python values, guided by the parsed schema.

A table is a dict of field name -> value (absent or None = not written). A
union field takes (member table name, dict). Vectors are lists; vectors of
ubyte may be bytes. Nothing here is specific to the .pte format: the schema
says what each field is.

Identical strings, scalar vectors and tables are written once and shared
(a flatbuffer may point at one object from several places): a program of
1,000 instructions repeats the same sizes, dim orders and allocation infos,
and the device reads the file in RAM, so this is RAM saved on the board.
"""

import flatbuffers

from host_tools.lowering.fbs import SCALARS


class FlatbufferWriter:
    """Serialize dicts as tables of `schema` (a host_tools.lowering.fbs.Schema)."""

    def __init__(self, schema):
        self.schema = schema

    def serialize(self, root):
        """Return the bytes of a flatbuffer whose root table is `root`."""
        b = flatbuffers.Builder(1024)
        self._shared = {}
        off = self._table(b, self.schema.root_type, root)
        b.Finish(off, file_identifier=self.schema.file_identifier.encode())
        return bytes(b.Output())

    def _scalar_kind(self, type_name):
        if type_name in self.schema.enums:
            type_name = self.schema.enums[type_name][0]
        return SCALARS.get(type_name)

    def _table(self, b, table, values):
        key = ("table", table, _frozen(values))
        if key not in self._shared:
            self._shared[key] = self._build_table(b, table, values)
        return self._shared[key]

    def _build_table(self, b, table, values):
        fields = self.schema.tables[table]
        # Children (strings, vectors, tables) must be built before StartObject.
        children = {}
        for f in fields:
            v = values.get(f.name)
            if v is None:
                continue
            if f.vector:
                children[f.name] = self._vector(b, f, v)
            elif f.type == "string":
                children[f.name] = b.CreateSharedString(v)
            elif f.type in self.schema.unions:
                member, member_values = v
                children[f.name] = self._table(b, member, member_values)
            elif f.type in self.schema.tables:
                children[f.name] = self._table(b, f.type, v)
        b.StartObject(max((f.slot for f in fields), default=-1) + 1)
        for f in fields:
            v = values.get(f.name)
            if v is None:
                continue
            if f.name in children:
                if f.type in self.schema.unions and not f.vector:
                    tag = self.schema.unions[f.type].index(v[0]) + 1
                    b.PrependUint8Slot(f.slot - 1, tag, 0)
                b.PrependUOffsetTRelativeSlot(f.slot, children[f.name], 0)
            else:
                _, suffix = self._scalar_kind(f.type)
                default = _parse_default(f.default, f.type, self.schema)
                getattr(b, "Prepend%sSlot" % suffix)(f.slot, v, default)
        return b.EndObject()

    def _vector(self, b, f, items):
        key = ("vector", f.type, f.align, _frozen(items))
        if key not in self._shared:
            self._shared[key] = self._build_vector(b, f, items)
        return self._shared[key]

    def _build_vector(self, b, f, items):
        kind = self._scalar_kind(f.type)
        if kind is not None:
            size, suffix = kind
            if suffix == "Uint8" and isinstance(items, (bytes, bytearray, memoryview)):
                b.StartVector(1, len(items), max(f.align, 1))
                b.head = b.head - len(items)
                b.Bytes[b.head : b.head + len(items)] = bytes(items)
                return b.EndVector()
            b.StartVector(size, len(items), max(f.align, size))
            prepend = getattr(b, "Prepend" + suffix)
            for item in reversed(items):
                prepend(item)
            return b.EndVector()
        if f.type == "string":
            offs = [b.CreateSharedString(s) for s in items]
        else:
            offs = [self._table(b, f.type, item) for item in items]
        b.StartVector(4, len(offs), 4)
        for off in reversed(offs):
            b.PrependUOffsetTRelative(off)
        return b.EndVector()


def _frozen(v):
    """A hashable, type-exact key for a value tree (1 and 1.0 and True differ)."""
    if isinstance(v, dict):
        return ("d",) + tuple(sorted((k, _frozen(x)) for k, x in v.items()))
    if isinstance(v, (list, tuple)):
        return ("l",) + tuple(_frozen(x) for x in v)
    if isinstance(v, (bytearray, memoryview)):
        return bytes(v)
    return (type(v).__name__, v)


def _parse_default(text, type_name, schema):
    if type_name in schema.enums:
        members = schema.enums[type_name][1]
        if text in members:
            return members[text]
    if type_name in ("float", "double"):
        return float(text)
    if type_name == "bool":
        return text == "true"
    return int(text)

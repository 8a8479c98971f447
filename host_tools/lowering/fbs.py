"""A small reader of the flatbuffer schema language, enough for program.fbs.

It knows tables, enums and unions (no structs, no includes), which is all the
.pte schema uses. Both the host writer (`flatbuffer_writer.py`) and the
generator of the device-side slot constants (`gen_schema.py`) read the schema
through it, so the .fbs file stays the one place the format is defined.
"""

import os
import re
from dataclasses import dataclass, field

SCHEMA_PATH = os.path.join(os.path.dirname(__file__), "schema", "program.fbs")

# flatbuffers scalar type name -> (byte size, flatbuffers.Builder method suffix)
SCALARS = {
    "bool": (1, "Bool"),
    "byte": (1, "Int8"),
    "int8": (1, "Int8"),
    "ubyte": (1, "Uint8"),
    "uint8": (1, "Uint8"),
    "short": (2, "Int16"),
    "int16": (2, "Int16"),
    "ushort": (2, "Uint16"),
    "uint16": (2, "Uint16"),
    "int": (4, "Int32"),
    "int32": (4, "Int32"),
    "uint": (4, "Uint32"),
    "uint32": (4, "Uint32"),
    "long": (8, "Int64"),
    "int64": (8, "Int64"),
    "ulong": (8, "Uint64"),
    "uint64": (8, "Uint64"),
    "float": (4, "Float32"),
    "double": (8, "Float64"),
}


@dataclass
class Field:
    name: str
    type: str  # scalar, enum, "string", table or union name; element type if vector
    vector: bool
    slot: int  # vtable slot; a union's value slot (its type tag is slot - 1)
    default: str = "0"
    align: int = 0  # force_align, or 0


@dataclass
class Schema:
    tables: dict = field(default_factory=dict)  # name -> [Field]
    enums: dict = field(default_factory=dict)  # name -> (underlying scalar, {member: value})
    unions: dict = field(default_factory=dict)  # name -> [member table names]; tag = index + 1
    file_identifier: str = ""
    root_type: str = ""


_COMMENT = re.compile(r"//[^\n]*")
_BLOCK = re.compile(r"(table|enum|union)\s+(\w+)\s*(?::\s*(\w+))?\s*\{([^}]*)\}")
_FIELD = re.compile(r"(\w+)\s*:\s*(\[?)\s*(\w+)\s*\]?\s*(?:=\s*([\w.\-]+))?\s*(\([^)]*\))?\s*;")


def parse(text):
    """Parse schema text into a Schema."""
    text = _COMMENT.sub("", text)
    schema = Schema()
    m = re.search(r'file_identifier\s+"(\w{4})"', text)
    schema.file_identifier = m.group(1) if m else ""
    m = re.search(r"root_type\s+(\w+)", text)
    schema.root_type = m.group(1) if m else ""
    for kind, name, base, body in _BLOCK.findall(text):
        if kind == "table":
            fields, slot = [], 0
            for fname, vec, ftype, default, attrs in _FIELD.findall(body):
                align = re.search(r"force_align\s*:\s*(\d+)", attrs or "")
                fields.append(Field(fname, ftype, bool(vec), slot, default or "0", int(align.group(1)) if align else 0))
                slot += 1
            schema.tables[name] = fields
        elif kind == "enum":
            members, value = {}, 0
            for item in filter(None, (s.strip() for s in body.split(","))):
                key, _, val = item.partition("=")
                value = int(val) if val.strip() else value
                members[key.strip()] = value
                value += 1
            schema.enums[name] = (base, members)
        else:
            schema.unions[name] = [s.strip() for s in body.split(",") if s.strip()]
    # A union field takes two slots: its type tag, then the value.
    for fields in schema.tables.values():
        shift = 0
        for f in fields:
            f.slot += shift
            if f.type in schema.unions and not f.vector:
                shift += 1
                f.slot += 1
    return schema


def load(path=SCHEMA_PATH):
    """Parse the .pte schema shipped with host_tools."""
    with open(path) as f:
        return parse(f.read())

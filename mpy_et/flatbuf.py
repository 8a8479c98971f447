"""Bounds-checked, zero-copy reads of a flatbuffer held in any buffer object.

Every position is checked against `end` before it is read, so a truncated or
corrupt file raises MpyEtError(InvalidProgram) naming what was being read,
never an IndexError or a read past the data. Used only at load time.

Integer fields are assembled from byte reads (`buf[i]` is a small int), so a
field read allocates nothing on MicroPython; struct.unpack_from would build a
tuple per read (about 0.5 MB of garbage to load the example CNN). Only f64
and ints() (whole vectors, one tuple) use struct.
"""

import struct

from mpy_et.errors import INVALID_PROGRAM, MpyEtError


class FlatReader:
    def __init__(self, buf, end):
        self.buf = buf
        self.end = end

    def fail(self, what, detail):
        raise MpyEtError(INVALID_PROGRAM, "%s: %s" % (what, detail))

    def _check(self, pos, size, what):
        if pos < 0 or pos + size > self.end:
            self.fail(what, "reads bytes %d..%d past the end of the flatbuffer (%d bytes)" % (pos, pos + size, self.end))

    def u8(self, pos, what):
        self._check(pos, 1, what)
        return self.buf[pos]

    def u16(self, pos, what):
        self._check(pos, 2, what)
        b = self.buf
        return b[pos] | b[pos + 1] << 8

    def u32(self, pos, what):
        self._check(pos, 4, what)
        b = self.buf
        return b[pos] | b[pos + 1] << 8 | b[pos + 2] << 16 | b[pos + 3] << 24

    def i32(self, pos, what):
        v = self.u32(pos, what)
        return v - 0x100000000 if v & 0x80000000 else v

    def u64(self, pos, what):
        lo = self.u32(pos, what)
        hi = self.u32(pos + 4, what)
        return lo | hi << 32 if hi else lo

    def i64(self, pos, what):
        lo = self.u32(pos, what)
        hi = self.u32(pos + 4, what)
        if not hi:
            return lo
        if hi == 0xFFFFFFFF and lo & 0x80000000:  # a small negative number
            return lo - 0x100000000
        v = lo | hi << 32
        return v - (1 << 64) if hi & 0x80000000 else v

    def f64(self, pos, what):
        self._check(pos, 8, what)
        return struct.unpack_from("<d", self.buf, pos)[0]

    def table(self, pos, what):
        """Check the table at pos and its vtable; return pos."""
        vt = pos - self.i32(pos, what)
        size = self.u16(vt, what + " vtable")
        if size < 4 or size & 1 or vt + size > self.end:
            self.fail(what, "corrupt vtable at %d (size %d)" % (vt, size))
        return pos

    def field(self, table, slot, what):
        """Position of a table field (slot = vtable offset), or 0 if absent."""
        vt = table - self.i32(table, what)
        if slot >= self.u16(vt, what):
            return 0
        off = self.u16(vt + slot, what)
        if not off:
            return 0
        if off < 4 or off >= self.u16(vt + 2, what):
            self.fail(what, "field offset %d lies outside its table" % off)
        return table + off

    def scalar(self, table, slot, read, default, what):
        pos = self.field(table, slot, what)
        return read(pos, what) if pos else default

    def ref(self, table, slot, what):
        """Position of the table/vector/string a field points to, or 0."""
        pos = self.field(table, slot, what)
        if not pos:
            return 0
        target = pos + self.u32(pos, what)
        if target >= self.end:
            self.fail(what, "points to %d, past the end (%d)" % (target, self.end))
        return target

    def subtable(self, table, slot, what):
        pos = self.ref(table, slot, what)
        return self.table(pos, what) if pos else 0

    def vector(self, table, slot, elem_size, what):
        """(position of element 0, length) of a vector field; (0, 0) if absent."""
        pos = self.ref(table, slot, what)
        if not pos:
            return 0, 0
        n = self.u32(pos, what)
        if pos + 4 + n * elem_size > self.end:
            self.fail(what, "vector of %d elements runs past the end of the flatbuffer" % n)
        return pos + 4, n

    def table_at(self, start, i, what):
        """The i-th table of a vector of tables starting at `start`."""
        pos = start + 4 * i
        return self.table(pos + self.u32(pos, what), what)

    def string(self, table, slot, what):
        start, n = self.vector(table, slot, 1, what)
        if not start:
            return ""
        try:
            return str(bytes(self.buf[start : start + n]), "utf-8")
        except UnicodeError:
            self.fail(what, "string is not valid UTF-8")

    def ints(self, start, n, fmt):
        """A tuple of n scalars of a vector already bounds-checked by vector()."""
        return tuple(struct.unpack_from("<%d%s" % (n, fmt), self.buf, start)) if n else ()

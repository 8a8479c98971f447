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

    def _past_end(self, pos, size, what):
        self.fail(what, "reads bytes %d..%d past the end of the flatbuffer (%d bytes)" % (pos, pos + size, self.end))

    # MicroPython keeps a call's frame on the C stack only when its locals plus
    # its deepest expression stack fit in 11 words; a larger frame is
    # heap-allocated on every call. These readers stay under that limit (the
    # byte assembly lives in the small module functions at the bottom), so a
    # field read allocates nothing: no frame, no struct tuple.

    def u8(self, pos, what):
        if pos < 0 or pos + 1 > self.end:
            self._past_end(pos, 1, what)
        return self.buf[pos]

    def u16(self, pos, what):
        if pos < 0 or pos + 2 > self.end:
            self._past_end(pos, 2, what)
        return _u16(self.buf, pos)

    def u32(self, pos, what):
        if pos < 0 or pos + 4 > self.end:
            self._past_end(pos, 4, what)
        return _u32(self.buf, pos)

    def i32(self, pos, what):
        if pos < 0 or pos + 4 > self.end:
            self._past_end(pos, 4, what)
        return _i32(self.buf, pos)

    def u64(self, pos, what):
        lo = self.u32(pos, what)
        hi = self.u32(pos + 4, what)
        return lo | hi << 32 if hi else lo

    def i64(self, pos, what):
        if pos < 0 or pos + 8 > self.end:
            self._past_end(pos, 8, what)
        b = self.buf
        hi = _i32(b, pos + 4)
        if hi == 0 and b[pos + 3] < 0x40 or hi == -1 and b[pos + 3] >= 0xC0:
            return _i32(b, pos)  # fits a small int (the usual sizes, indices, -1)
        return (hi << 32) + _u32(b, pos)

    def f64(self, pos, what):
        if pos < 0 or pos + 8 > self.end:
            self._past_end(pos, 8, what)
        return struct.unpack_from("<d", self.buf, pos)[0]

    def table(self, pos, what):
        """Check the table at pos and its vtable; return pos."""
        vt = pos - self.i32(pos, what)
        size = self.u16(vt, what)
        if size < 4 or size & 1 or vt + size > self.end:
            self._bad_vtable(vt, size, what)
        return pos

    def _bad_vtable(self, vt, size, what):
        self.fail(what, "corrupt vtable at %d (size %d)" % (vt, size))

    def field(self, table, slot, what):
        """Position of a table field (slot = vtable offset), or 0 if absent.
        `table` was checked by table(): its vtable lies inside the buffer."""
        b = self.buf
        vt = table - _i32(b, table)
        if slot >= _u16(b, vt):
            return 0
        slot = _u16(b, vt + slot)  # now the field's offset in its table
        if slot and (slot < 4 or slot >= _u16(b, vt + 2)):
            self._bad_offset(slot, what)
        return table + slot if slot else 0

    def _bad_offset(self, off, what):
        self.fail(what, "field offset %d lies outside its table" % off)

    def scalar(self, table, slot, read, default, what):
        """A scalar field read with `read`, an unbound reader such as
        FlatReader.u32 (a bound method would be allocated at every call)."""
        table = self.field(table, slot, what)
        return read(self, table, what) if table else default

    def ref(self, table, slot, what):
        """Position of the table/vector/string a field points to, or 0."""
        table = self.field(table, slot, what)
        if not table:
            return 0
        table += self.u32(table, what)
        if table >= self.end:
            self._past_end(table, 0, what)
        return table

    def subtable(self, table, slot, what):
        table = self.ref(table, slot, what)
        return self.table(table, what) if table else 0

    def vector(self, table, slot, elem_size, what):
        """(position of element 0, length) of a vector field; (0, 0) if absent."""
        table = self.ref(table, slot, what)
        if not table:
            return 0, 0
        slot = self.u32(table, what)  # the length
        if table + 4 + slot * elem_size > self.end:
            self._vector_too_long(slot, what)
        return table + 4, slot

    def _vector_too_long(self, n, what):
        self.fail(what, "vector of %d elements runs past the end of the flatbuffer" % n)

    def table_at(self, start, i, what):
        """The i-th table of a vector of tables starting at `start`."""
        start += 4 * i
        return self.table(start + self.u32(start, what), what)

    def string(self, table, slot, what):
        start, n = self.vector(table, slot, 1, what)
        if not start:
            return ""
        try:
            return str(memoryview(self.buf)[start : start + n], "utf-8")  # one view, not two copies
        except UnicodeError:
            self.fail(what, "string is not valid UTF-8")

    def ints(self, start, n, fmt):
        """A tuple of n scalars of a vector already bounds-checked by vector()."""
        if not n:
            return ()
        if n <= 4:  # the common short vectors: a constant format, no string built
            return struct.unpack_from(_FORMATS[fmt][n], self.buf, start)
        return struct.unpack_from("<%d%s" % (n, fmt), self.buf, start)


_FORMATS = {
    "i": (None, "<i", "<2i", "<3i", "<4i"),
    "q": (None, "<q", "<2q", "<3q", "<4q"),
    "d": (None, "<d", "<2d", "<3d", "<4d"),
    "B": (None, "<B", "<2B", "<3B", "<4B"),
}


def _u16(b, p):
    return b[p] | b[p + 1] << 8


def _u32(b, p):
    return b[p] | b[p + 1] << 8 | b[p + 2] << 16 | b[p + 3] << 24


# A 32-bit port's small ints hold 31 bits: _u32 of a negative number (a
# table's offset to its vtable, an int value of -1) would build a big int on
# the heap, and one more to subtract 2**32. _i32 and FlatReader.i64 make no
# object for values that fit a small int.


def _i32(b, p):
    top = b[p + 3]
    if top & 0x80:
        return ((top - 256) << 24) + (b[p] | b[p + 1] << 8 | b[p + 2] << 16)
    return b[p] | b[p + 1] << 8 | b[p + 2] << 16 | top << 24

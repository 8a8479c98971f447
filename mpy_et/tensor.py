"""Tensors: a shape, a scalar type and a window on a buffer object.

A tensor never owns memory. Its bytes are `buf[offset:offset + nbytes]`, where
`buf` is a planned arena (bytearray), the program buffer (constants: bytes,
or a memoryview over flash) or a caller's buffer. Kernels index `data`, a
typed view built once at load time; viper kernels take `buf` + `offset`.
"""

import struct

from mpy_et import dtypes
from mpy_et.errors import INVALID_ARGUMENT, INVALID_TYPE, NOT_SUPPORTED, MpyEtError
from mpy_et.port import HAS_CAST, uctypes

if uctypes is not None:
    _UCTYPE = {
        dtypes.BYTE: uctypes.UINT8,
        dtypes.CHAR: uctypes.INT8,
        dtypes.SHORT: uctypes.INT16,
        dtypes.INT: uctypes.INT32,
        dtypes.LONG: uctypes.INT64,
        dtypes.FLOAT: uctypes.FLOAT32,
        dtypes.DOUBLE: uctypes.FLOAT64,
        dtypes.BOOL: uctypes.UINT8,
    }


class StructView:
    """Typed element access through struct, for ports with neither
    memoryview.cast nor uctypes (CircuitPython). Slow; reads allocate a tuple."""

    def __init__(self, buf, offset, count, fmt, size):
        self.buf = buf
        self.offset = offset
        self.count = count
        self.fmt = "<" + fmt
        self.size = size

    def __len__(self):
        return self.count

    def __getitem__(self, i):
        return struct.unpack_from(self.fmt, self.buf, self.offset + i * self.size)[0]

    def __setitem__(self, i, v):
        struct.pack_into(self.fmt, self.buf, self.offset + i * self.size, v)


def addressable(*tensors):
    """True when every tensor (None skipped) has a typed view viper can take
    the address of (memoryview, uctypes); False where one is a StructView."""
    for t in tensors:
        if t is not None and isinstance(t.data, StructView):
            return False
    return True


def typed_view(buf, offset, count, dtype):
    """An indexable view of `count` elements of `dtype` at buf[offset:].

    Built at load time (allocates a small view object); indexing it reads and
    writes the buffer in place. Integer element access does not allocate;
    float reads box a float on ports whose floats live on the heap.
    """
    _, size, fmt = dtypes.INFO[dtype]
    if count == 0:
        return ()
    if HAS_CAST:
        return memoryview(buf)[offset : offset + count * size].cast(fmt)
    if uctypes is not None:
        addr = uctypes.addressof(buf) + offset
        if addr % size:
            raise MpyEtError(NOT_SUPPORTED, "tensor data at address 0x%x is not %d-byte aligned" % (addr, size))
        # An array descriptor as the struct itself: indexable like the `.v`
        # of a one-field struct, one dict and one object fewer per tensor.
        return uctypes.struct(addr, (uctypes.ARRAY | 0, _UCTYPE[dtype] | count), uctypes.NATIVE)
    return StructView(buf, offset, count, fmt, size)


class Tensor:
    """A tensor value of a method. Shape and type are fixed at load time."""

    # The order of the dims in memory, outermost first, when it is not the
    # contiguous one (e.g. channels-last (0, 2, 3, 1)); set per tensor at load
    # only then, so contiguous tensors keep six attributes.
    dim_order = None

    def __init__(self, dtype, sizes):
        self.dtype = dtype
        self.sizes = sizes
        n = 1
        i = len(sizes)
        while i:  # not `for`: an iterator's 4 stack slots would push this frame onto the heap
            i -= 1
            n *= sizes[i]
        self.numel = n
        # Six attributes: a seventh would grow every instance's attribute
        # table (about 270 more bytes per tensor at load on MicroPython).
        self.buf = None
        self.offset = 0
        self.data = None

    @property
    def nbytes(self):
        return self.numel * dtypes.itemsize(self.dtype)

    def bind(self, buf, offset, view=None):
        """Point the tensor at buf[offset:offset + nbytes] (load time); `view`:
        an existing typed view of exactly those elements, to share."""
        self.buf = buf
        self.offset = offset
        self.data = typed_view(buf, offset, self.numel, self.dtype) if view is None else view

    @property
    def dim(self):
        return len(self.sizes)

    @property
    def buffer(self):
        """A memoryview of the tensor's bytes, to read or fill in place."""
        return memoryview(self.buf)[self.offset : self.offset + self.nbytes]

    def tolist(self):
        """The values as nested lists (a plain number for a 0-dim tensor)."""
        flat = [self.data[i] for i in range(self.numel)]
        if self.dtype == dtypes.BOOL:
            flat = [bool(v) for v in flat]
        if not self.sizes:
            return flat[0]
        return _nest(flat, self.sizes, 0, 0)[0]

    def copy_from(self, data):
        """Fill from raw bytes, an array, a Tensor or a (nested) list (not the hot path)."""
        if isinstance(data, Tensor):
            if data.dtype != self.dtype or data.sizes != self.sizes:
                raise MpyEtError(
                    INVALID_ARGUMENT,
                    "expected %s%s, got %s%s" % (dtypes.name(self.dtype), list(self.sizes), dtypes.name(data.dtype), list(data.sizes)),
                )
            data = data.buffer
        if isinstance(data, (bytes, bytearray, memoryview)):
            n = len(data) * (data.itemsize if hasattr(data, "itemsize") else 1)
            if n != self.nbytes:
                raise MpyEtError(
                    INVALID_ARGUMENT, "expected %d bytes (%s%s), got %d" % (self.nbytes, dtypes.name(self.dtype), list(self.sizes), n)
                )
            self.buffer[:] = data
            return
        typecode = getattr(data, "typecode", None)
        if typecode is not None and typecode != dtypes.INFO[self.dtype][2]:
            raise MpyEtError(
                INVALID_TYPE,
                "expected %s data (array typecode %r), got typecode %r" % (dtypes.name(self.dtype), dtypes.INFO[self.dtype][2], typecode),
            )
        flat = []
        shape = _flatten(data, flat)
        if typecode is None and shape != list(self.sizes) and not (len(shape) == 1 and shape[0] == self.numel):
            raise MpyEtError(INVALID_ARGUMENT, "expected shape %s, got %s" % (list(self.sizes), shape))
        if len(flat) != self.numel:
            raise MpyEtError(INVALID_ARGUMENT, "expected %d elements, got %d" % (self.numel, len(flat)))
        is_float = self.dtype in dtypes.FLOATING
        view = self.data
        for i in range(self.numel):
            v = flat[i]
            if not is_float and not isinstance(v, (int, bool)):
                raise MpyEtError(INVALID_TYPE, "element %d is %r; expected an integer for %s" % (i, v, dtypes.name(self.dtype)))
            view[i] = float(v) if is_float else int(v)

    def __repr__(self):
        return "Tensor(%s, %s)" % (dtypes.name(self.dtype), list(self.sizes))


def _flatten(data, out):
    if isinstance(data, (int, float, bool)):
        out.append(data)
        return []
    shape = None
    n = 0
    for item in data:
        s = _flatten(item, out)
        if shape is None:
            shape = s
        n += 1
    return [n] + (shape or [])


def _nest(flat, sizes, dim, pos):
    if dim == len(sizes) - 1:
        n = sizes[dim]
        return flat[pos : pos + n], pos + n
    out = []
    for _ in range(sizes[dim]):
        sub, pos = _nest(flat, sizes, dim + 1, pos)
        out.append(sub)
    return out, pos

"""Program: a validated .pte held in memory, from which methods are loaded.

The program bytes are never copied: constants become views into them. Pass
a path (read once into RAM, or mapped in place when the file system allows
it, as ROMFS does), bytes, a bytearray or a memoryview over flash.
"""

from mpy_et import schema as S
from mpy_et.errors import INVALID_ARGUMENT, INVALID_PROGRAM, MEMORY_ALLOCATION_FAILED, NOT_FOUND, NOT_SUPPORTED, MpyEtError
from mpy_et.flatbuf import FlatReader
from mpy_et.method import Method, operator_names
from mpy_et.port import collect_often, restore_collection

_HEADER_OFFSET = 8
_HEADER_MAGIC = b"eh00"
_HEADER_MIN_LENGTH = 24
_MAX_BUFFER = 1 << 31  # planned buffers above 2 GiB are treated as corrupt


def _read_source(source):
    if isinstance(source, str):
        f = open(source, "rb")
        try:
            try:
                return memoryview(f)  # ROMFS: the file's bytes in place
            except TypeError:
                pass
            size = f.seek(0, 2)
            f.seek(0)
            try:
                buf = bytearray(size)  # one block of the final size: read() would grow and copy
            except MemoryError:
                raise MpyEtError(
                    MEMORY_ALLOCATION_FAILED,
                    "%s: cannot read %d bytes into RAM; put the file in ROMFS or freeze it, "
                    "and load it from there (read in place)" % (source, size),
                )
            if f.readinto(buf) != size:
                raise MpyEtError(INVALID_PROGRAM, "%s: short read (the file changed while loading?)" % source)
            return buf
        finally:
            f.close()
    if isinstance(source, (bytes, bytearray, memoryview)):
        return source
    raise MpyEtError(INVALID_ARGUMENT, "Program.load takes a path, bytes, bytearray or memoryview, not %s" % type(source).__name__)


def _open_streamed(path):
    if not isinstance(path, str):
        raise MpyEtError(INVALID_ARGUMENT, "Program.load(stream=True) takes a path, not %s" % type(path).__name__)
    f = open(path, "rb")
    total = f.seek(0, 2)
    head = bytearray(min(total, _HEADER_OFFSET + 32))
    f.seek(0)
    f.readinto(head)
    size = total
    if len(head) >= _HEADER_OFFSET + _HEADER_MIN_LENGTH and bytes(head[8:12]) == _HEADER_MAGIC:
        size = FlatReader(head, len(head)).u64(16, "extended header program_size")
        if size > total:
            raise MpyEtError(INVALID_PROGRAM, "%s: extended header says the flatbuffer is %d bytes; the file is %d" % (path, size, total))
    buf = bytearray(size)
    f.seek(0)
    f.readinto(buf)
    return Program(buf, f, total)


class Program:
    """A loaded program. Use Program.load(); then load_method(name)."""

    def __init__(self, buf, file=None, size=None):
        self.buf = buf
        self.file = file  # stream=True: the open .pte, constants are read from it
        size = len(buf) if size is None else size
        self.size = size
        if size < 8:
            raise MpyEtError(INVALID_PROGRAM, "program is %d bytes; a .pte is at least 8" % size)
        ident = bytes(buf[4:8])
        if ident != S.FILE_IDENTIFIER:
            raise MpyEtError(
                INVALID_PROGRAM, "not an ExecuTorch program: identifier %r at bytes 4..7, expected %r" % (ident, S.FILE_IDENTIFIER)
            )
        self.program_size = size
        self.segment_base = 0
        if size >= _HEADER_OFFSET + _HEADER_MIN_LENGTH and bytes(buf[8:12]) == _HEADER_MAGIC:
            self._read_extended_header(size)
        r = self.reader = FlatReader(buf, self.program_size)
        root = r.table(r.u32(0, "root offset"), "Program")
        self.root = root
        self.version = r.scalar(root, S.PROGRAM_VERSION, FlatReader.u32, 0, "Program.version")
        _, n_inline = r.vector(root, S.PROGRAM_CONSTANT_BUFFER, 4, "Program.constant_buffer")
        if n_inline > 1:
            raise MpyEtError(
                NOT_SUPPORTED, "constants stored inline in Program.constant_buffer (pre-2024 .pte layout); re-export the model"
            )
        self.segments = self._read_segments(r, root)
        self._read_constant_segment(r, root)
        plans, n = r.vector(root, S.PROGRAM_EXECUTION_PLAN, 4, "Program.execution_plan")
        self._plans = {}
        self._op_names = {}  # method name -> operator names, read once
        self._arenas = None  # several methods: the planned buffers they share (_shared_buffers)
        self._state_set = set()  # (buffer id, offset) of the state set in them (claim_state)
        for i in range(n):
            what = "execution_plan[%d]" % i
            plan = r.table_at(plans, i, what)
            self._plans[r.string(plan, S.EXECUTION_PLAN_NAME, what + ".name")] = plan

    @staticmethod
    def load(source, stream=False):
        """Load and validate a program from a path, bytes, bytearray or memoryview.

        stream=True (a path only): read the flatbuffer into RAM but leave the
        constants in the file; each method reads them into one scratch buffer
        just before the instruction that uses them (models larger than RAM).
        The file stays open while the program is alive.
        """
        if stream:
            return _open_streamed(source)
        return Program(_read_source(source))

    def _read_extended_header(self, size):
        r = FlatReader(self.buf, size)
        length = r.u32(12, "extended header length")
        if length < _HEADER_MIN_LENGTH:
            raise MpyEtError(INVALID_PROGRAM, "extended header length %d < %d" % (length, _HEADER_MIN_LENGTH))
        program_size = r.u64(16, "extended header program_size")
        base = r.u64(24, "extended header segment_base_offset")
        data_size = r.u64(32, "extended header segment_data_size") if length >= 32 else 0
        if program_size > size or program_size < _HEADER_OFFSET + length:
            raise MpyEtError(
                INVALID_PROGRAM,
                "extended header says the flatbuffer is %d bytes; the data is %d bytes (truncated file?)" % (program_size, size),
            )
        if base and (base < program_size or base + data_size > size):
            raise MpyEtError(
                INVALID_PROGRAM,
                "segments at bytes %d..%d lie outside the %d-byte program (truncated file?)" % (base, base + data_size, size),
            )
        self.program_size = program_size
        self.segment_base = base

    def _read_segments(self, r, root):
        start, n = r.vector(root, S.PROGRAM_SEGMENTS, 4, "Program.segments")
        segments = []
        size = self.size
        for i in range(n):
            what = "segments[%d]" % i
            seg = r.table_at(start, i, what)
            off = self.segment_base + r.scalar(seg, S.DATA_SEGMENT_OFFSET, FlatReader.u64, 0, what)
            length = r.scalar(seg, S.DATA_SEGMENT_SIZE, FlatReader.u64, 0, what)
            if length and not self.segment_base:  # ExecuTorch lists an empty segment for models without weights
                raise MpyEtError(INVALID_PROGRAM, "program lists %d segments but has no extended header locating them" % n)
            if off + length > size:
                raise MpyEtError(
                    INVALID_PROGRAM,
                    "%s: bytes %d..%d past the end of the %d-byte program (truncated file?)" % (what, off, off + length, size),
                )
            segments.append((off, length))
        return segments

    def _read_constant_segment(self, r, root):
        self.constant_offsets = (0, 0)
        self.constant_base = 0
        self.constant_size = 0
        cs = r.subtable(root, S.PROGRAM_CONSTANT_SEGMENT, "Program.constant_segment")
        if not cs:
            return
        self.constant_offsets = r.vector(cs, S.SUBSEGMENT_OFFSETS_OFFSETS, 8, "constant_segment.offsets")
        if self.constant_offsets[1] <= 1:
            return
        idx = r.scalar(cs, S.SUBSEGMENT_OFFSETS_SEGMENT_INDEX, FlatReader.u32, 0, "constant_segment")
        if idx >= len(self.segments):
            raise MpyEtError(INVALID_PROGRAM, "constant_segment.segment_index %d out of range (%d segments)" % (idx, len(self.segments)))
        self.constant_base, self.constant_size = self.segments[idx]

    def constant(self, index, nbytes, what):
        """Byte offset in self.buf of constant `index` holding nbytes, checked."""
        start, n = self.constant_offsets
        if index >= n:
            raise MpyEtError(INVALID_PROGRAM, "%s: data_buffer_idx %d out of range (%d constants)" % (what, index, n))
        off = self.reader.u64(start + 8 * index, what)
        if off + nbytes > self.constant_size:
            raise MpyEtError(
                INVALID_PROGRAM,
                "%s: constant %d at offset %d + %d bytes runs past the constant segment (%d bytes)"
                % (what, index, off, nbytes, self.constant_size),
            )
        return self.constant_base + off

    def initial_value(self, entry, index, nbytes, what):
        """Offset (in self.buf, or in the file of a streamed program) of the
        initial value `index` of Program.mutable_data_segments[entry], checked."""
        r = self.reader
        start, n = r.vector(self.root, S.PROGRAM_MUTABLE_DATA_SEGMENTS, 4, "Program.mutable_data_segments")
        if entry >= n:
            raise MpyEtError(INVALID_PROGRAM, "%s: mutable_data_segments entry %d out of range (%d entries)" % (what, entry, n))
        sub = r.table_at(start, entry, "mutable_data_segments[%d]" % entry)
        seg = r.scalar(sub, S.SUBSEGMENT_OFFSETS_SEGMENT_INDEX, FlatReader.u32, 0, what)
        if seg >= len(self.segments):
            raise MpyEtError(
                INVALID_PROGRAM, "%s: mutable data segment_index %d out of range (%d segments)" % (what, seg, len(self.segments))
            )
        s_off, k = r.vector(sub, S.SUBSEGMENT_OFFSETS_OFFSETS, 8, what)
        if index >= k:
            raise MpyEtError(INVALID_PROGRAM, "%s: data_buffer_idx %d out of range (%d initial values)" % (what, index, k))
        base, size = self.segments[seg]
        off = r.u64(s_off + 8 * index, what)
        if off + nbytes > size:
            raise MpyEtError(
                INVALID_PROGRAM,
                "%s: initial value %d at offset %d + %d bytes runs past its segment (%d bytes)" % (what, index, off, nbytes, size),
            )
        return base + off

    def named_data(self, key):
        """The bytes ExecuTorch's named data stores under `key`, as a
        memoryview into the program (no copy), or None when it has no such
        key (e.g. "mpy_et/io_quantization": the scales and zero points of a
        program exported with int8 inputs and outputs, as JSON text).
        Not available for a program loaded with stream=True."""
        r = self.reader
        start, n = r.vector(self.root, S.PROGRAM_NAMED_DATA, 4, "Program.named_data")
        for i in range(n):
            what = "named_data[%d]" % i
            entry = r.table_at(start, i, what)
            if r.string(entry, S.NAMED_DATA_KEY, what) != key:
                continue
            idx = r.scalar(entry, S.NAMED_DATA_SEGMENT_INDEX, FlatReader.u32, 0, what)
            if idx >= len(self.segments):
                raise MpyEtError(INVALID_PROGRAM, "%s: segment_index %d out of range (%d segments)" % (what, idx, len(self.segments)))
            off, length = self.segments[idx]
            if self.file is not None:
                raise MpyEtError(NOT_SUPPORTED, "named data of a program loaded with stream=True: load it without streaming")
            return memoryview(self.buf)[off : off + length]
        return None

    def backend_ids(self, name="forward"):
        """Ids of the backends method `name` delegates to (its delegates' order)."""
        r = self.reader
        if name not in self._plans:
            raise MpyEtError(NOT_FOUND, "no method %r in program; it has %s" % (name, self.method_names))
        start, n = r.vector(self._plans[name], S.EXECUTION_PLAN_DELEGATES, 4, "delegates")
        return [r.string(r.table_at(start, i, "delegates"), S.BACKEND_DELEGATE_ID, "delegates") for i in range(n)]

    def backend_delegate(self, plan, index, what):
        """(id, processed, compile_specs) of delegates[index] of an execution
        plan: processed is the backend's blob as a memoryview into the program
        (inline data or a segment, read in place), compile_specs a list of
        (key, memoryview value)."""
        r = self.reader
        start, n = r.vector(plan, S.EXECUTION_PLAN_DELEGATES, 4, what)
        if index < 0 or index >= n:
            raise MpyEtError(INVALID_PROGRAM, "%s: delegate_index %d out of range (%d delegates)" % (what, index, n))
        d = r.table_at(start, index, what)
        backend_id = r.string(d, S.BACKEND_DELEGATE_ID, what)
        ref = r.subtable(d, S.BACKEND_DELEGATE_PROCESSED, what)
        if not ref:
            r.fail(what, "backend %r has no processed data" % backend_id)
        location = r.scalar(ref, S.BACKEND_DELEGATE_DATA_REFERENCE_LOCATION, FlatReader.u8, 0, what)
        k = r.scalar(ref, S.BACKEND_DELEGATE_DATA_REFERENCE_INDEX, FlatReader.u32, 0, what)
        buf = memoryview(self.buf)
        if location == S.DATA_LOCATION_INLINE:
            s, m = r.vector(self.root, S.PROGRAM_BACKEND_DELEGATE_DATA, 4, "Program.backend_delegate_data")
            if k >= m:
                raise MpyEtError(INVALID_PROGRAM, "%s: inline delegate data %d out of range (%d entries)" % (what, k, m))
            off, size = r.vector(r.table_at(s, k, what), S.BACKEND_DELEGATE_INLINE_DATA_DATA, 1, what)
        elif location == S.DATA_LOCATION_SEGMENT:
            if k >= len(self.segments):
                raise MpyEtError(INVALID_PROGRAM, "%s: delegate segment %d out of range (%d segments)" % (what, k, len(self.segments)))
            if self.file is not None:
                raise MpyEtError(NOT_SUPPORTED, "%s: delegate blobs of a program loaded with stream=True: load it without streaming" % what)
            off, size = self.segments[k]
        else:
            r.fail(what, "unknown delegate data location %d" % location)
        specs = []
        s, m = r.vector(d, S.BACKEND_DELEGATE_COMPILE_SPECS, 4, what)
        for i in range(m):
            spec = r.table_at(s, i, what)
            vs, vn = r.vector(spec, S.COMPILE_SPEC_VALUE, 1, what)
            specs.append((r.string(spec, S.COMPILE_SPEC_KEY, what), buf[vs : vs + vn]))
        return backend_id, buf[off : off + size], specs

    @property
    def method_names(self):
        return list(self._plans)

    def operator_names(self, name="forward"):
        """Operator names ("aten::add.out", ...) method `name` lists, without loading it."""
        if name not in self._plans:
            raise MpyEtError(NOT_FOUND, "no method %r in program; it has %s" % (name, self.method_names))
        names = self._op_names.get(name)
        if names is None:
            names = self._op_names[name] = operator_names(self.reader, self._plans[name], "method %r" % name)
        return names

    def load_method(self, name="forward", buffers=None, registry=None, kernels=None):
        """Prepare a method to execute.

        Args:
            name: method name, e.g. "forward".
            buffers: optional list of bytearrays, one per planned memory id
                (1, 2, ...); allocated here when omitted (a program of
                several methods: once, shared by all its methods, see
                _shared_buffers).
            registry: optional dict op name -> (module, function); defaults to
                portable_kernels.registry.KERNELS.
            kernels: optional dict op name -> kernel function, looked up
                before the registry: custom operators' kernels (a module's
                KERNELS, following the kernel convention of ARCHITECTURE.md).
        """
        if name not in self._plans:
            raise MpyEtError(NOT_FOUND, "no method %r in program; it has %s" % (name, self.method_names))
        if buffers is None and len(self._plans) > 1:
            buffers = self._shared_buffers()[: len(self._planned_sizes(name))]
        # Loading makes much garbage between the objects it keeps; collected
        # often, the kept ones pack together instead of leaving a heap of small
        # holes (the 224 KB board: int8 GRU failed to find 3,072 bytes with
        # 174 KB free, and loads with it).
        previous = collect_often()
        try:
            return Method(self, name, self._plans[name], buffers, registry, kernels)
        except MemoryError as e:
            # The planned buffers fail with their own message (Method._planned_buffers);
            # this is the heap running out after them, e.g. while kernels are imported.
            raise MpyEtError(
                MEMORY_ALLOCATION_FAILED,
                "method %r: the heap ran out while loading (%s), after its planned buffers (%s bytes); "
                "freeze or ROMFS the kernels, or pass buffers= allocated early" % (name, e, self._planned_total(name)),
            )
        finally:
            restore_collection(previous)

    def _shared_buffers(self):
        """The planned buffers every method of a program of several methods
        uses (as ExecuTorch's Python runtime does): one per memory id, of the
        largest size any method needs, allocated at the first load_method.
        So the methods share state (mutable buffers placed alike in each,
        as ExecuTorch's share_mutable_buffers does), set to its initial
        values by the first method loaded that has it (ExecuTorch's runtime
        sets it again at each method's load), and one method's execute()
        overwrites another's intermediates and outputs."""
        if self._arenas is None:
            sizes = []
            for name in self._plans:
                for i, n in enumerate(self._planned_sizes(name)):
                    if i == len(sizes):
                        sizes.append(0)
                    if n < 0 or n > _MAX_BUFFER:
                        raise MpyEtError(
                            INVALID_PROGRAM, "method %r: planned buffer for memory id %d has absurd size %d" % (name, i + 1, n)
                        )
                    sizes[i] = max(sizes[i], n)
            try:
                self._arenas = [bytearray(n) for n in sizes]
            except MemoryError:
                raise MpyEtError(
                    MEMORY_ALLOCATION_FAILED,
                    "cannot allocate the %d bytes of planned buffers the program's methods share (%s per memory id)" % (sum(sizes), sizes),
                )
        return self._arenas

    def claim_state(self, t):
        """True if state tensor t should be set to its initial value now: it
        is not in the shared planned buffers, or no method set it there yet."""
        arenas = self._arenas
        if arenas is None or not any(t.buf is b for b in arenas):
            return True
        key = (id(t.buf), t.offset)
        if key in self._state_set:
            return False
        self._state_set.add(key)
        return True

    def _planned_sizes(self, name):
        r = self.reader
        start, n = r.vector(self._plans[name], S.EXECUTION_PLAN_NON_CONST_BUFFER_SIZES, 8, "non_const_buffer_sizes")
        return [r.i64(start + 8 * i, "non_const_buffer_sizes") for i in range(1, n)]

    def _planned_total(self, name):
        return sum(self._planned_sizes(name))

"""Method: values bound to storage, kernels resolved, instructions pre-bound.

Everything that can be decided once is decided in Method.__init__ (load
time). execute() only walks a list of (step, ctx) pairs.
"""

from array import array

from mpy_et import dim_orders, dtypes
from mpy_et import schema as S
from mpy_et.errors import (
    INTERNAL,
    INVALID_ARGUMENT,
    INVALID_PROGRAM,
    MEMORY_ALLOCATION_FAILED,
    NOT_SUPPORTED,
    MpyEtError,
)
from mpy_et.flatbuf import FlatReader
from mpy_et.kernels import resolve
from mpy_et.noalloc import all_marked, mark
from mpy_et.port import heap_lock, heap_unlock, ticks_diff, ticks_us
from mpy_et.tensor import Tensor

_MAX_BUFFER = 1 << 31  # planned buffers above 2 GiB are treated as corrupt
_USES_KEPT = 8  # instruction indices kept per operator for an OperatorMissing message


class Method:
    """A loaded method. Create through Program.load_method()."""

    def __init__(self, program, name, plan, buffers, registry, kernels=None):
        self.name = name
        self.program = program
        r = program.reader
        w = "method %r" % name
        self.buffers = self._planned_buffers(r, plan, buffers, w)
        self.planned_bytes = sum(len(b) for b in self.buffers)
        self._views = {}
        self._stream = _stream_plan() if program.file is not None else None
        self.stream_scratch_bytes = 0
        self._making = -1  # the value index _tensor is making (streamed constants)
        self._state = None  # mpy_et.state.State: mutable buffers, if any
        self._jumps = False  # control flow (JumpFalseCall): execute() follows the steps' jumps
        self._loops = None  # mpy_et.loops.Loops while loading a method with executorch_prim ops (map loops)
        self._counters = ()  # the loops' counters: execute() starts them at 0
        self._dynamic = None  # mpy_et.dynamic.Dynamic: tensors with bounded dynamic shapes, if any
        values = self._values(r, plan, w)
        self._inputs = self._io(r, plan, S.EXECUTION_PLAN_INPUTS, values, w + " inputs")
        self._outputs = self._io(r, plan, S.EXECUTION_PLAN_OUTPUTS, values, w + " outputs")
        for i, t in enumerate(self._inputs):
            if not isinstance(t, Tensor):
                raise MpyEtError(NOT_SUPPORTED, "%s: input %d is %s; only tensor inputs are supported" % (w, i, type(t).__name__))
            if t.data is None:  # supplied at input time: give it its own buffer
                t.bind(bytearray(t.nbytes), 0)
        self._plan = plan
        self._handles = []  # (backend, handle) of each initialized delegate (close())
        self._steps, self._no_step = self._instructions(r, plan, values, registry, kernels, w)
        del self._views, self._values_start, self._stream
        # Every step marked allocation-free (mpy_et/noalloc.py): execute() locks
        # the heap, so an inference allocates nothing at all. Set it to False to
        # keep the heap unlocked (e.g. other threads that allocate meanwhile).
        self.lock_heap = heap_lock is not None and all_marked(self._steps)
        self._tracer = None

    # -- load time ---------------------------------------------------------

    def _planned_buffers(self, r, plan, buffers, w):
        start, n = r.vector(plan, S.EXECUTION_PLAN_NON_CONST_BUFFER_SIZES, 8, w + " non_const_buffer_sizes")
        sizes = [r.i64(start + 8 * i, w) for i in range(1, n)]
        self.planned_sizes = sizes
        if buffers is not None:
            if len(buffers) != len(sizes):
                raise MpyEtError(
                    INVALID_ARGUMENT, "%s needs %d planned buffers (memory ids 1..%d), got %d" % (w, len(sizes), len(sizes), len(buffers))
                )
            for i, (b, size) in enumerate(zip(buffers, sizes)):
                if len(b) < size:
                    raise MpyEtError(
                        MEMORY_ALLOCATION_FAILED, "%s: planned buffer for memory id %d is %d bytes, needs %d" % (w, i + 1, len(b), size)
                    )
            return list(buffers)
        out = []
        for i, size in enumerate(sizes):
            if size < 0 or size > _MAX_BUFFER:
                raise MpyEtError(INVALID_PROGRAM, "%s: planned buffer for memory id %d has absurd size %d" % (w, i + 1, size))
            try:
                out.append(bytearray(size))
            except MemoryError:
                raise MpyEtError(
                    MEMORY_ALLOCATION_FAILED,
                    "%s: cannot allocate %d bytes for memory id %d (planned buffers need %d bytes in all); "
                    "a smaller model, a larger heap, or buffers= allocated early" % (w, size, i + 1, sum(sizes)),
                )
        return out

    def _values(self, r, plan, w):
        start, n = r.vector(plan, S.EXECUTION_PLAN_VALUES, 4, w + " values")
        values = [None] * n
        self._values_start = start  # tensors and scalar lists are read again from here when first used
        lists = []
        what = _VALUE  # the index goes into the message only on failure: no string per value
        for i in range(n):
            try:
                ev = r.table_at(start, i, what)
                tag = r.scalar(ev, S.EVALUE_VAL_TYPE, FlatReader.u8, 0, what)
                if tag == 0 or tag == S.KERNEL_TYPES_NULL:
                    continue
                pos = r.subtable(ev, S.EVALUE_VAL, what)
                if not pos:
                    r.fail(what, "value of type tag %d is missing" % tag)
                if tag == S.KERNEL_TYPES_INT:
                    values[i] = r.scalar(pos, S.INT_INT_VAL, FlatReader.i64, 0, what)
                elif tag == S.KERNEL_TYPES_BOOL:
                    values[i] = bool(r.scalar(pos, S.BOOL_BOOL_VAL, FlatReader.u8, 0, what))
                elif tag == S.KERNEL_TYPES_DOUBLE:
                    values[i] = r.scalar(pos, S.DOUBLE_DOUBLE_VAL, FlatReader.f64, 0.0, what)
                elif tag == S.KERNEL_TYPES_STRING:
                    values[i] = r.string(pos, S.STRING_STRING_VAL, what)
                elif tag == S.KERNEL_TYPES_TENSOR:
                    values[i] = _LAZY  # made on first use (see _value)
                elif tag == S.KERNEL_TYPES_DOUBLE_LIST:
                    r.vector(pos, S.DOUBLE_LIST_ITEMS, 8, what)  # checked now, made on first use
                    values[i] = _scalar_list  # not made yet: made on first use (see _value)
                elif tag == S.KERNEL_TYPES_BOOL_LIST:
                    r.vector(pos, S.BOOL_LIST_ITEMS, 1, what)
                    values[i] = _scalar_list  # not made yet: made on first use (see _value)
                elif tag == S.KERNEL_TYPES_INT_LIST:
                    r.vector(pos, S.INT_LIST_ITEMS, 8, what)  # its items are checked when it is made
                    values[i] = _scalar_list  # not made yet: made on first use (see _value)
                elif tag in (S.KERNEL_TYPES_TENSOR_LIST, S.KERNEL_TYPES_OPTIONAL_TENSOR_LIST):
                    s, k = r.vector(pos, S.TENSOR_LIST_ITEMS, 4, what)  # same slot in OptionalTensorList
                    lists.append((i, tag, r.ints(s, k, "i")))
                else:
                    r.fail(what, "unknown value type tag %d" % tag)
            except MpyEtError as e:
                raise _located(e, _VALUE, "values[%d]" % i)
        # Tensor lists hold value indices; resolve them once all values exist.
        for i, tag, items in lists:
            out = []
            for j in items:
                if j == -1 and tag == S.KERNEL_TYPES_OPTIONAL_TENSOR_LIST:
                    out.append(None)  # ExecuTorch writes -1 for a None entry
                    continue
                if j < 0 or j >= n:
                    r.fail("values[%d]" % i, "list item refers to values[%d]; there are %d values" % (j, n))
                v = self._value(values, j)
                if tag == S.KERNEL_TYPES_TENSOR_LIST:
                    ok = isinstance(v, Tensor)
                else:
                    ok = v is None or isinstance(v, Tensor)
                if not ok:
                    r.fail("values[%d]" % i, "list item values[%d] has the wrong type (%s)" % (j, type(v).__name__))
                out.append(v)
            values[i] = out
        return values

    def _tensor(self, r, pos, what):
        dtype = r.scalar(pos, S.TENSOR_SCALAR_TYPE, FlatReader.u8, 0, what)
        if dtype not in dtypes.INFO:
            raise MpyEtError(
                NOT_SUPPORTED, "%s: tensor scalar type %d is not supported (supported: %s)" % (what, dtype, sorted(dtypes.INFO))
            )
        if r.scalar(pos, S.TENSOR_STORAGE_OFFSET, FlatReader.i32, 0, what):
            raise MpyEtError(NOT_SUPPORTED, "%s: nonzero storage_offset" % what)
        dyn = r.scalar(pos, S.TENSOR_SHAPE_DYNAMISM, FlatReader.u8, 0, what)
        if dyn != S.TENSOR_SHAPE_DYNAMISM_STATIC and dyn != S.TENSOR_SHAPE_DYNAMISM_DYNAMIC_BOUND:
            raise MpyEtError(
                NOT_SUPPORTED,
                "%s: unbounded dynamic shapes (shape_dynamism %d) are not supported; export with an upper bound (Dim(max=...))"
                % (what, dyn),
            )
        s, k = r.vector(pos, S.TENSOR_SIZES, 4, what)
        sizes = r.ints(s, k, "i")
        limit = self.program.size + self.planned_bytes
        numel = 1
        for d in sizes:
            if d < 0:
                r.fail(what, "negative size %d in %s" % (d, list(sizes)))
            numel *= d
            if numel > limit:
                r.fail(what, "sizes %s describe more data than the program and its buffers hold" % (list(sizes),))
        s, k = r.vector(pos, S.TENSOR_DIM_ORDER, 1, what)
        order = None
        if k:
            if k != len(sizes):
                r.fail(what, "dim_order has %d entries for %d dims" % (k, len(sizes)))
            order = None if _identity_order(r, s, k) else _memory_order(r.ints(s, k, "B"), sizes, r, what)
        extra = r.subtable(pos, S.TENSOR_EXTRA_TENSOR_INFO, what)
        if extra and r.scalar(extra, S.EXTRA_TENSOR_INFO_LOCATION, FlatReader.u8, 0, what) != S.TENSOR_DATA_LOCATION_SEGMENT:
            raise MpyEtError(NOT_SUPPORTED, "%s: tensor data stored outside the program (external .ptd) is not supported" % what)
        t = Tensor(dtype, sizes)
        if order is not None:
            t.dim_order = order
        if dyn:  # DYNAMIC_BOUND: sizes are the bound (mpy_et/dynamic.py)
            self._add_dynamic(t, what)
        idx = r.scalar(pos, S.TENSOR_DATA_BUFFER_IDX, FlatReader.u32, 0, what)
        alloc = r.subtable(pos, S.TENSOR_ALLOCATION_INFO, what)
        if idx and not alloc:
            off = self.program.constant(idx, t.nbytes, what)
            if self._stream is None:
                t.bind(self.program.buf, off)
            elif self._making in self._stream.offsets:
                t.bind(self._stream.scratch, self._stream.offsets[self._making])
            else:
                raise MpyEtError(NOT_SUPPORTED, "%s: a constant inside a tensor list cannot be streamed; load without stream=True" % what)
        elif alloc:
            mem = r.scalar(alloc, S.ALLOCATION_DETAILS_MEMORY_ID, FlatReader.u32, 0, what)
            off = r.scalar(alloc, S.ALLOCATION_DETAILS_MEMORY_OFFSET_LOW, FlatReader.u32, 0, what)
            off += r.scalar(alloc, S.ALLOCATION_DETAILS_MEMORY_OFFSET_HIGH, FlatReader.u32, 0, what) << 32
            if mem < 1 or mem > len(self.buffers):
                r.fail(what, "memory_id %d out of range (program plans %d buffers)" % (mem, len(self.buffers)))
            if off + t.nbytes > self.planned_sizes[mem - 1]:
                r.fail(
                    what,
                    "planned at offset %d + %d bytes, past the end of memory id %d (%d bytes)"
                    % (off, t.nbytes, mem, self.planned_sizes[mem - 1]),
                )
            # Tensors at the same place with the same type (in-place ops, views)
            # share one typed view: fewer objects made at load and kept after.
            key = (off << 8 | dtype) << 4 | mem
            seen = self._views.get(key)
            if seen is not None and seen[0] == t.numel:
                t.bind(self.buffers[mem - 1], off, seen[1])
            else:
                t.bind(self.buffers[mem - 1], off)
                self._views[key] = (t.numel, t.data)
            if idx:  # a mutable buffer with an initial value (module state)
                entry = r.scalar(extra, S.EXTRA_TENSOR_INFO_MUTABLE_DATA_SEGMENTS_IDX, FlatReader.u64, 0, what) if extra else 0
                src = self.program.initial_value(entry, idx, t.nbytes, what)
                if self.program.file is None:
                    src = memoryview(self.program.buf)[src : src + t.nbytes]
                self._add_state(t, src)
        return t

    def _add_state(self, t, source):
        """t keeps its value across execute() calls; set it to source (None:
        zeros), unless it lies in the planned buffers a program's methods
        share and another method of the program set it already (loading a
        method does not reset the state the others see)."""
        if self._state is None:
            from mpy_et.state import State  # only methods with state pay for the module

            self._state = State(self.program.file)
        self._state.add(t, source, self.program.claim_state(t))

    def _add_dynamic(self, t, what):
        """t's shape may shrink below its sizes (the bound) at set_input."""
        if self._loops is not None and self._making in self._loops.filled:
            return  # a map's output: filled by its loop at the size planned
        if self._dynamic is None:
            if self._stream is not None:
                raise MpyEtError(NOT_SUPPORTED, "%s: dynamic shapes in a streamed program (load without stream=True)" % what)
            from mpy_et.dynamic import Dynamic  # only methods with dynamic shapes pay for the module

            self._dynamic = Dynamic()
        self._dynamic.add(t)

    def _io(self, r, plan, slot, values, what):
        s, k = r.vector(plan, slot, 4, what)
        out = []
        for j in r.ints(s, k, "i"):
            if j < 0 or j >= len(values):
                r.fail(what, "refers to values[%d]; there are %d values" % (j, len(values)))
            out.append(self._value(values, j))
        return out

    def _instructions(self, r, plan, values, registry, kernels, w):
        s, n_chains = r.vector(plan, S.EXECUTION_PLAN_CHAINS, 4, w + " chains")
        if n_chains > 1:
            raise MpyEtError(NOT_SUPPORTED, "%s has %d chains; only one is supported" % (w, n_chains))
        op_names = self.program.operator_names(self.name)  # cached by the program: made once
        self._op_names = op_names
        if not n_chains:
            self._ctxs = []
            return [], []
        chain = r.table_at(s, 0, "chains[0]")
        si, n = r.vector(chain, S.CHAIN_INSTRUCTIONS, 4, "chains[0].instructions")
        # Pass 0 checks every instruction, finds the operators used (all missing
        # ones are reported together) and each value's last use. Pass 1 reads
        # each call again and binds it: a tensor object is made when an
        # instruction first needs it and dropped after its last use, so only
        # the live ones exist at a time (their views stay in the steps). One
        # loop in one frame: a helper called per instruction would put its
        # frame on the heap each time.
        uses = {}
        # 1 + the last instruction using each value: 16-bit where the instructions allow (half the bytes)
        last = array("H", bytes(2 * len(values))) if n < 0xFFFF else array("i", bytes(4 * len(values)))
        n_ops = len(op_names)
        n_values = len(values)
        what = _INSTRUCTION  # the index goes into the message only on failure
        found = None
        stream = self._stream
        # Full size (one slot per instruction, trimmed at the end) before
        # anything else: growing them, or making them after pass 0's lists,
        # needs contiguous blocks that a fragmented small heap may not have.
        steps, ctxs, no_step = [None] * n, [None] * n, []
        at = None  # control flow: the step index each instruction starts at (jump destinations)
        jumps = []  # pass 0: (instruction, destination, condition); pass 1: steps of JumpFalseCall instructions
        backends = {}  # delegate index -> backend (pass 0), then -> (backend, handle) once initialized
        loops = None
        j = 0
        for phase in (0, 1):
            if phase:
                if self._loops is not None:
                    self._check_loops(values, jumps)
                jumps = []
                loops = self._loops
                found = resolve([nm for nm in op_names if nm in uses], uses, registry, kernels)
                uses = None  # one index per instruction: free it before pass 1 makes the steps
                if stream is not None:
                    self.stream_scratch_bytes = stream.layout(w)
                if self._jumps:
                    at = array("i", bytes(4 * (n + 1)))
                # On a heap short of room for the steps still to build, collect
                # before each kernel's prepare: the previous instruction's
                # garbage is reused at once, so what the steps keep packs
                # together instead of leaving holes, and the large blocks a
                # prepare asks for (a module's native code, a scratch buffer)
                # still find room (resnet8 fp32 patched on the 224 KB board:
                # a load peak 10 KB above what it keeps instead of 21 KB).
                # Short of room: less than 64 KB + 128 B per instruction free
                # (literals: a named constant would cost RAM on a port).
                from mpy_et.port import collect_garbage  # a local name: no slot in the module's globals

                free = collect_garbage()
                compact = free is not None and free < 65536 + 128 * n
            for i in range(n):
                if at is not None:
                    at[i] = j
                try:
                    ins = r.table_at(si, i, what)
                    tag = r.scalar(ins, S.INSTRUCTION_INSTR_ARGS_TYPE, FlatReader.u8, 0, what)
                    pos = r.subtable(ins, S.INSTRUCTION_INSTR_ARGS, what)
                    if tag == S.INSTRUCTION_ARGUMENTS_FREE_CALL:
                        continue  # storage is planned ahead of time: nothing to free
                    if tag == S.INSTRUCTION_ARGUMENTS_DELEGATE_CALL and pos:
                        op = r.scalar(pos, S.DELEGATE_CALL_DELEGATE_INDEX, FlatReader.i32, 0, what)
                        if op < 0:
                            r.fail(what, "delegate_index %d is negative" % op)
                        op = -1 - op  # < 0: a delegate call
                        sa, na = r.vector(pos, S.DELEGATE_CALL_ARGS, 4, what)
                    elif tag == S.INSTRUCTION_ARGUMENTS_MOVE_CALL or tag == S.INSTRUCTION_ARGUMENTS_JUMP_FALSE_CALL:
                        if not pos:
                            r.fail(what, "empty control-flow instruction")
                        if phase:
                            j = self._control_step(r, pos, tag, i, n, values, steps, ctxs, no_step, jumps, j)
                        else:
                            self._control_uses(r, pos, tag, i, n, n_values, last, jumps)
                        continue
                    elif tag != S.INSTRUCTION_ARGUMENTS_KERNEL_CALL or not pos:
                        r.fail(what, "unknown or empty instruction (type tag %d)" % tag)
                    else:
                        op = r.scalar(pos, S.KERNEL_CALL_OP_INDEX, FlatReader.i32, 0, what)
                        if op < 0 or op >= n_ops:
                            r.fail(what, "op_index %d out of range (%d operators)" % (op, n_ops))
                        sa, na = r.vector(pos, S.KERNEL_CALL_ARGS, 4, what)
                    args = r.ints(sa, na, "i")
                    for a in args:
                        if a < 0 or a >= n_values:
                            r.fail(what, "argument refers to values[%d]; there are %d values" % (a, n_values))
                    if op < 0 and not phase and -1 - op not in backends:
                        backends[-1 - op] = self._backend(-1 - op, i)
                except MpyEtError as e:
                    raise _located(e, _INSTRUCTION, "instruction %d" % i)
                if op < 0:
                    if not phase:
                        for a in args:
                            last[a] = i + 1
                        continue
                    step = self._delegate(backends, -1 - op, i, args, values)
                    for a in args:
                        if last[a] == i + 1:
                            values[a] = None
                    steps[j], ctxs[j] = step
                    j += 1
                    continue
                name = op_names[op]
                if not phase:
                    seen = uses.get(name)  # not setdefault(name, []): that builds a list per call
                    if seen is None:
                        uses[name] = [i]
                    elif len(seen) < _USES_KEPT:  # enough for a message; -1: there are more
                        seen.append(i)
                    elif seen[-1] != -1:
                        seen[-1] = -1
                    for a in args:
                        last[a] = i + 1
                        if stream is not None and values[a] is _LAZY:
                            self._note_constant(stream, a, i)
                    if name.startswith("executorch_prim::") and name != _ET_VIEW:
                        self._need_loops().note(i, name, args)
                    continue
                for a in args:
                    self._value(values, a)
                k = _kernel_arg_count(args, values)
                vals = [None] * k  # a plain loop: a comprehension would allocate a closure and a frame
                while k:
                    k -= 1
                    vals[k] = values[args[k]]
                kernel = found[name]
                # what it writes is not a constant (inline: a helper's frame would be heap-allocated per call)
                w = values[args[0] if name == _COPY_INDEX else args[-1]]
                if (isinstance(w, Tensor) and w.buf is self.program.buf) or isinstance(w, list):
                    _check_written(i, name, w, self.program.buf)
                if loops is not None:
                    loops.at(i, name, vals, values)
                if kernel not in dim_orders.ANY and not dim_orders.accepts(kernel, vals):
                    for v in vals:
                        if isinstance(v, Tensor) and v.dim_order is not None:
                            raise MpyEtError(
                                NOT_SUPPORTED,
                                "instruction %d (%s): a tensor in dim_order %s (e.g. channels-last); this kernel takes it only when every tensor has the same sizes and order"
                                % (i, name, list(v.dim_order))
                                if kernel in dim_orders.SAME
                                else "instruction %d (%s): a tensor in dim_order %s (e.g. channels-last); this kernel takes the contiguous order only"
                                % (i, name, list(v.dim_order)),
                            )
                if compact:
                    collect_garbage()
                try:  # inline, not a helper: a helper's frame would be heap-allocated per call
                    step = kernel(*vals)
                except MpyEtError as e:
                    raise MpyEtError(e.code, "instruction %d (%s): %s" % (i, name, e.message))
                except (TypeError, ValueError, IndexError) as e:
                    raise _misfit(i, name, e)
                _check_storage(i, name, vals)
                if loops is not None:
                    loops.prepared(name, vals, args, values)
                if name == _COPY_BACK and _planned_in(vals[0], self.buffers):
                    self._add_state(vals[0], None)  # ExecuTorch's buffer write-back: state (no-op if it has an initial value)
                for a in args:
                    if last[a] == i + 1:
                        values[a] = None
                if self._dynamic is not None:  # kept to prepare again at a new input shape
                    self._dynamic.note(-1 if step is None else j, i, name, kernel, vals, args, self)
                if step is None:
                    no_step.append(i)  # rare (a no-op kernel): step_ops() skips it
                else:
                    reads = stream.reads(args) if stream is not None else ()
                    if reads:
                        step = stream.wrap(self.program.file, reads, step)
                    steps[j], ctxs[j] = step
                    j += 1
        if at is not None:  # each jump's destination instruction -> the step it starts at
            at[n] = j
            # which steps are jumps: only their results are step indices (an
            # assembler step returns whatever is in r0: portable_kernels/native/thumb_steps.py)
            self._jump_steps = bytearray(j)
            for k in jumps:
                ctxs[k] = (ctxs[k][0], at[ctxs[k][1]])
                self._jump_steps[k] = 1
        del steps[j:], ctxs[j:]  # calls that needed no step (shrinks in place)
        if self._loops is not None:
            self._counters = self._loops.counters
            self._loops = None
        if self._dynamic is not None and (self._jumps or backends):
            raise MpyEtError(NOT_SUPPORTED, "%s: dynamic shapes with control flow or delegates are not supported" % w)
        self._ctxs = ctxs
        return steps, no_step

    def _need_loops(self):
        if self._loops is None:
            from mpy_et.loops import Loops  # only methods with executorch_prim ops pay for the module

            self._loops = Loops()
        return self._loops

    def _check_loops(self, values, jumps):
        """End of pass 0: the loops are map loops (mpy_et/loops.py); a map's
        output, DYNAMIC_BOUND in ExecuTorch's programs, is static at its size."""
        loops = self._loops
        loops.jumps = jumps
        loops.check(values)
        dynamic = self._dynamic
        if dynamic is not None:
            for a in loops.filled:
                if values[a] in dynamic.bounds:
                    del dynamic.bounds[values[a]]
            if not dynamic.bounds:
                self._dynamic = None

    def _control_uses(self, r, pos, tag, i, n, n_values, last, jumps):
        """Pass 0 of a MoveCall / JumpFalseCall: check it, note the values it reads."""
        what = _INSTRUCTION
        if tag == S.INSTRUCTION_ARGUMENTS_MOVE_CALL:
            refs = (
                r.scalar(pos, S.MOVE_CALL_MOVE_FROM, FlatReader.i32, 0, what),
                r.scalar(pos, S.MOVE_CALL_MOVE_TO, FlatReader.i32, 0, what),
            )
        else:
            refs = (r.scalar(pos, S.JUMP_FALSE_CALL_COND_VALUE_INDEX, FlatReader.i32, 0, what),)
            dest = r.scalar(pos, S.JUMP_FALSE_CALL_DESTINATION_INSTRUCTION, FlatReader.i32, 0, what)
            if dest < 0 or dest == i or dest > n:
                raise MpyEtError(
                    INVALID_PROGRAM,
                    "%s: jump to instruction %d; a jump goes to another of the %d instructions or to their end" % (what, dest, n),
                )
            if dest < i:  # a loop: checked at the end of pass 0 (mpy_et/loops.py)
                self._need_loops()
            jumps.append((i, dest, refs[0]))
            self._jumps = True
        for a in refs:
            if a < 0 or a >= n_values:
                r.fail(what, "control flow refers to values[%d]; there are %d values" % (a, n_values))
            last[a] = i + 1

    def _control_step(self, r, pos, tag, i, n, values, steps, ctxs, no_step, jumps, j):
        """Pass 1 of a MoveCall (a step copying a tensor's bytes into another
        planned tensor: the branch's result into the cond's output) or a
        JumpFalseCall (a step returning the step to continue at, or None).
        Returns the next step index."""
        what = "instruction %d" % i
        if tag == S.INSTRUCTION_ARGUMENTS_MOVE_CALL:
            src = self._value(values, r.scalar(pos, S.MOVE_CALL_MOVE_FROM, FlatReader.i32, 0, what))
            dst = self._value(values, r.scalar(pos, S.MOVE_CALL_MOVE_TO, FlatReader.i32, 0, what))
            if not isinstance(src, Tensor) or not isinstance(dst, Tensor):
                raise MpyEtError(
                    NOT_SUPPORTED,
                    "%s: MoveCall of a %s into a %s; only tensors are supported" % (what, type(src).__name__, type(dst).__name__),
                )
            if src.dtype != dst.dtype or src.nbytes != dst.nbytes or dst.data is None or src.data is None:
                raise MpyEtError(INVALID_PROGRAM, "%s: MoveCall between tensors of different dtype or size, or without storage" % what)
            if src.nbytes:
                steps[j], ctxs[j] = _move, (dst.buffer, src.buffer)
                return j + 1
            no_step.append(i)
            return j
        cond = self._value(values, r.scalar(pos, S.JUMP_FALSE_CALL_COND_VALUE_INDEX, FlatReader.i32, 0, what))
        dest = r.scalar(pos, S.JUMP_FALSE_CALL_DESTINATION_INSTRUCTION, FlatReader.i32, 0, what)
        if isinstance(cond, Tensor):
            if cond.data is None or cond.numel != 1:
                raise MpyEtError(INVALID_PROGRAM, "%s: JumpFalseCall's condition must be a one-element tensor" % what)
            view = cond.data
        elif self._loops is not None and hasattr(cond, "v"):  # a loop's condition (mpy_et.loops.Cell)
            view = cond.v
        elif cond is True or cond is False:
            if cond:
                no_step.append(i)  # never jumps
                return j
            view = None  # always jumps
        else:
            raise MpyEtError(INVALID_PROGRAM, "%s: JumpFalseCall's condition is a %s, not a bool or a tensor" % (what, type(cond).__name__))
        steps[j], ctxs[j] = _jump_false, (view, dest)
        jumps.append(j)
        return j + 1

    def _backend(self, index, i):
        """The backend of delegates[index] (pass 0: unknown or unavailable ones fail here)."""
        from mpy_et.backends import get_backend  # only programs with delegates pay for the package

        where = "%s (delegate call, delegates[%d])" % (_INSTRUCTION, index)  # _located adds the index
        backend_id = self.program.backend_delegate(self._plan, index, where)[0]
        return get_backend(backend_id, where)

    def _delegate(self, backends, index, i, args, values):
        """(step, context) of the delegate call at instruction i: the
        backend initialized once per delegate (at its first call)."""
        entry = backends[index]
        where = "instruction %d (delegate call, delegates[%d])" % (i, index)
        if not isinstance(entry, tuple):
            backend_id, processed, specs = self.program.backend_delegate(self._plan, index, where)
            try:
                entry = backends[index] = (entry, entry.init(processed, specs))
            except MpyEtError as e:
                raise MpyEtError(e.code, "%s: backend %r: %s" % (where, backend_id, e.message))
            self._handles.append(entry)
        backend, handle = entry
        vals = [None] * len(args)
        for k in range(len(args)):
            vals[k] = self._value(values, args[k])
        _check_storage(i, "delegate call", vals)
        prepare = getattr(backend, "prepare", None)
        if prepare is not None:
            try:
                prepare(handle, vals)
            except MpyEtError as e:
                raise MpyEtError(e.code, "%s: %s" % (where, e.message))
        from mpy_et.backends import delegate_step

        return delegate_step, (backend.execute, handle, vals)

    def close(self):
        """Release what the method's backends hold (ExecuTorch's destroy)."""
        while self._handles:
            backend, handle = self._handles.pop()
            backend.destroy(handle)

    def _note_constant(self, stream, i, step):
        """Streaming: if values[i] is a constant tensor, note its file bytes and use."""
        r = self.program.reader
        try:
            pos = r.subtable(r.table_at(self._values_start, i, _VALUE), S.EVALUE_VAL, _VALUE)
            idx = r.scalar(pos, S.TENSOR_DATA_BUFFER_IDX, FlatReader.u32, 0, _VALUE)
            if not idx or r.subtable(pos, S.TENSOR_ALLOCATION_INFO, _VALUE):
                return  # not a constant, or state (planned; its initial value is read at load)
            s, k = r.vector(pos, S.TENSOR_SIZES, 4, _VALUE)
            n = dtypes.itemsize(r.scalar(pos, S.TENSOR_SCALAR_TYPE, FlatReader.u8, 0, _VALUE))
            for d in r.ints(s, k, "i"):
                n *= d
            stream.note(i, self.program.constant(idx, n, _VALUE), n, step)
        except MpyEtError as e:
            raise _located(e, _VALUE, "values[%d]" % i)

    def _value(self, values, i):
        """values[i], making its tensor object on first use (small: its frame stays on the C stack)."""
        v = values[i]
        if v is _LAZY:
            v = values[i] = self._make_tensor(i)
        elif v is _scalar_list:  # a list not made yet (the function marks it: no marker object)
            v = values[i] = _scalar_list(self.program.reader, self._values_start, len(values), i)
        return v

    def _make_tensor(self, i):
        r = self.program.reader
        self._making = i
        try:
            pos = r.subtable(r.table_at(self._values_start, i, _VALUE), S.EVALUE_VAL, _VALUE)
            return self._tensor(r, pos, _VALUE)
        except MpyEtError as e:
            raise _located(e, _VALUE, "values[%d]" % i)

    # -- the user's API ----------------------------------------------------

    def inputs_size(self):
        return len(self._inputs)

    def outputs_size(self):
        return len(self._outputs)

    def input(self, i):
        """The i-th input tensor; fill input(i).buffer in place or use set_input."""
        self._check_index(i, self._inputs, "input")
        return self._inputs[i]

    def output(self, i):
        """The i-th output (a Tensor, valid until the next execute())."""
        self._check_index(i, self._outputs, "output")
        return self._outputs[i]

    def set_input(self, i, data):
        """Copy data (bytes, array, Tensor or list) into input i, checking dtype and size.

        An input with dynamic dims (exported with an upper bound) takes the
        shape of a Tensor or nested list within its bound: see resize_input."""
        t = self.input(i)
        dynamic = self._dynamic
        if dynamic is not None and t in dynamic.bounds:
            sizes = dynamic.shape_of(data)
            if sizes is not None:
                self.resize_input(i, sizes)
        try:
            t.copy_from(data)
        except MpyEtError as e:
            raise MpyEtError(e.code, "%s input %d: %s" % (self.name, i, e.message))

    def resize_input(self, i, sizes):
        """Give input i the shape `sizes` (each dim within the program's
        bound, else InvalidArgument naming the dim), resize the tensors that
        depend on it and prepare again the steps whose shapes changed (this
        allocates; execute() still does not). Returns True when a shape changed."""
        t = self.input(i)
        if self._dynamic is None:
            if tuple(sizes) != tuple(t.sizes):
                raise MpyEtError(
                    INVALID_ARGUMENT, "%s input %d has the static shape %s, got %s" % (self.name, i, list(t.sizes), list(sizes))
                )
            return False
        if self._tracer is not None and self._tracer.capture and tuple(sizes) != t.sizes:
            raise MpyEtError(NOT_SUPPORTED, _CAPTURE_AT_BOUND % self.name)
        try:
            changed = self._dynamic.resize(self, i, t, sizes)
        except MpyEtError as e:
            raise MpyEtError(e.code, "%s: %s" % (self.name, e.message))
        if changed:
            self.lock_heap = self.lock_heap and all_marked(self._steps)  # (an event tracer keeps its ticks: the same steps)
        return changed

    def _check_index(self, i, items, kind):
        if not 0 <= i < len(items):
            raise MpyEtError(INVALID_ARGUMENT, "%s has %d %ss; %s %d does not exist" % (self.name, len(items), kind, kind, i))

    def reset_state(self):
        """Set every mutable buffer (module state that forward updates in
        place) back to its value in the program (zeros when the program
        gives none), as when the method was loaded. Nothing is allocated
        (unless the program is streamed): it may run with the heap locked."""
        if self._state is not None:
            self._state.reset()

    @property
    def state_bytes(self):
        """Bytes of state (mutable buffers) the method keeps across calls."""
        return 0 if self._state is None else self._state.nbytes()

    def step_ops(self):
        """(instruction index, operator name) of every step, in execution order.

        Read again from the program (not kept per step: RAM is for the model).
        iter_step_ops() yields the same pairs one at a time (no list)."""
        return list(self.iter_step_ops())

    def iter_step_ops(self):
        """step_ops() as a generator: a board with little heap left after a
        long program's load (428 steps: ~9 KB of pairs) walks it this way."""
        r = self.program.reader
        s, n_chains = r.vector(self._plan, S.EXECUTION_PLAN_CHAINS, 4, "chains")
        if not n_chains:
            return
        si, n = r.vector(r.table_at(s, 0, "chains[0]"), S.CHAIN_INSTRUCTIONS, 4, "instructions")
        for i in range(n):
            ins = r.table_at(si, i, "instruction")
            tag = r.scalar(ins, S.INSTRUCTION_INSTR_ARGS_TYPE, FlatReader.u8, 0, "instruction")
            if tag == S.INSTRUCTION_ARGUMENTS_MOVE_CALL or tag == S.INSTRUCTION_ARGUMENTS_JUMP_FALSE_CALL:
                if i not in self._no_step:
                    yield i, "MoveCall" if tag == S.INSTRUCTION_ARGUMENTS_MOVE_CALL else "JumpFalseCall"
                continue
            if tag == S.INSTRUCTION_ARGUMENTS_DELEGATE_CALL:  # named "delegate:<backend id>"
                index = r.scalar(
                    r.subtable(ins, S.INSTRUCTION_INSTR_ARGS, "call"), S.DELEGATE_CALL_DELEGATE_INDEX, FlatReader.i32, 0, "call"
                )
                yield i, "delegate:" + self.program.backend_delegate(self._plan, index, "delegate")[0]
                continue
            if tag != S.INSTRUCTION_ARGUMENTS_KERNEL_CALL:
                continue
            if i not in self._no_step:
                op = r.scalar(r.subtable(ins, S.INSTRUCTION_INSTR_ARGS, "call"), S.KERNEL_CALL_OP_INDEX, FlatReader.i32, 0, "op")
                yield i, self._op_names[op]

    def set_event_tracer(self, tracer):
        """Record the start and end tick of every step of each execute() into
        `tracer` (an mpy_et.event_tracer.EventTracer; its ticks array is
        allocated here, so recording allocates nothing; with capture=True
        also the debug buffer of every step's outputs). None stops recording."""
        if tracer is not None:
            if self._jumps and tracer.capture:
                raise MpyEtError(
                    NOT_SUPPORTED, "%s: capturing intermediates of a method with jumps (cond, map) is not supported" % self.name
                )
            if tracer.capture and self._dynamic is not None and self._dynamic.resized():
                raise MpyEtError(NOT_SUPPORTED, _CAPTURE_AT_BOUND % self.name)
            tracer.bind(self)
        self._tracer = tracer

    def execute(self):
        """Run every instruction once.

        Does not allocate: each step is a pre-bound (function, context) pair.
        (Float kernels box float results on ports whose floats live on the
        heap.) When every step is allocation-free (lock_heap), the heap is
        locked first: then not even the frames of Python steps go on the heap
        (MicroPython puts them on the C stack), and execute() allocates 0 bytes.
        With an event tracer (set_event_tracer) a second loop (_run_traced)
        also records each step's start and end tick; without one, the only
        cost is one test per execute() (and one for dynamic shapes whose
        inputs do not fit together yet: mpy_et/dynamic.py).
        """
        dynamic = self._dynamic
        if dynamic is not None and dynamic.stale is not None:  # inputs resized that do not fit together (yet)
            raise MpyEtError(INVALID_ARGUMENT, "%s: the inputs' shapes do not fit together: %s" % (self.name, dynamic.stale))
        tracer = self._tracer
        if tracer is not None:
            tracer.begin()  # counts the run, or raises when full: before the heap is locked
            if self.lock_heap:
                heap_lock()
            if self._jumps:
                self._run_traced_jumps(tracer)
            else:
                self._run_traced(tracer)
            return
        if self.lock_heap:
            heap_lock()  # before _run: its frame goes on the C stack too; _run unlocks
        if self._jumps:
            self._run_jumps()
        else:
            self._run()

    def _run_jumps(self):
        """_run for a method with control flow: a JumpFalseCall's step returns
        the step to continue at (backward only in map loops, which end: checked at load)."""
        i = self._reset_counters()
        steps, ctxs, jump = self._steps, self._ctxs, self._jump_steps
        n = len(steps)
        locked = self.lock_heap
        try:
            try:
                while i < n:
                    k = steps[i](ctxs[i])
                    i = k if jump[i] and k is not None else i + 1
            finally:
                if locked:
                    heap_unlock()
        except MpyEtError:
            raise
        except Exception as e:
            raise self._failure(e, i, locked)

    def _reset_counters(self):
        """The map loops' counters to 0 (a call that failed mid-loop leaves one behind); returns 0."""
        i = len(self._counters)
        while i:
            i -= 1
            self._counters[i][0] = 0
        return 0

    def _run_traced_jumps(self, tracer):
        """_run_jumps summing into each step's two ticks the time spent in it
        and how many times it ran (a step may run never or many times)."""
        i = self._reset_counters()
        steps, ctxs, jump = self._steps, self._ctxs, self._jump_steps
        n = len(steps)
        locked = self.lock_heap
        ticks, clock, diff = tracer.ticks, ticks_us, ticks_diff
        k = (tracer.runs - 1) * tracer.per_run
        j = k + 2 * n
        while j > k:
            ticks[j] = 0
            j -= 1
        try:
            try:
                ticks[k] = clock()
                while i < n:
                    t = clock()
                    s = steps[i](ctxs[i])
                    j = k + 1 + 2 * i
                    ticks[j] += diff(clock(), t)
                    ticks[j + 1] += 1
                    i = s if jump[i] and s is not None else i + 1
                ticks[k + 2 * n + 1] = clock()
            finally:
                if locked:
                    heap_unlock()
        except MpyEtError:
            raise
        except Exception as e:
            raise self._failure(e, i, locked)

    def _run(self):
        i = 0
        steps, ctxs = self._steps, self._ctxs  # two lists: no (step, ctx) tuple kept per instruction
        n = len(steps)
        locked = self.lock_heap
        try:
            try:
                while i < n:
                    steps[i](ctxs[i])
                    i += 1
            finally:
                if locked:
                    heap_unlock()
        except MpyEtError:
            raise
        except Exception as e:
            raise self._failure(e, i, locked)

    def _run_traced(self, tracer):
        """_run's loop with each step between two ticks (nothing allocated)."""
        i = 0
        steps, ctxs = self._steps, self._ctxs
        if tracer.steps is not None:  # capture: the same steps, each copying its outputs
            steps, ctxs = tracer.steps, tracer.ctxs
        n = len(steps)
        locked = self.lock_heap
        ticks, clock = tracer.ticks, ticks_us
        k = (tracer.runs - 1) * tracer.per_run
        try:
            try:
                ticks[k] = clock()
                while i < n:
                    k += 1
                    ticks[k] = clock()
                    steps[i](ctxs[i])
                    k += 1
                    ticks[k] = clock()
                    i += 1
                ticks[k + 1] = clock()
            finally:
                if locked:
                    heap_unlock()
        except MpyEtError:
            raise
        except Exception as e:
            raise self._failure(e, i, locked)

    def _failure(self, e, i, locked):
        """The MpyEtError for step i raising e."""
        k, name = i, "?"
        j = 0
        for pair in self.iter_step_ops():  # no list: the heap may be what ran out
            if j == i:
                k, name = pair
                break
            j += 1
        if locked and isinstance(e, MemoryError):
            return MpyEtError(
                INTERNAL,
                "instruction %d (%s) allocated while the heap was locked: its kernel is marked "
                "allocation-free (mpy_et/noalloc.py) but is not; set lock_heap = False to run it anyway" % (k, name),
            )
        return MpyEtError(INTERNAL, "instruction %d (%s) failed: %s: %s" % (k, name, type(e).__name__, e))


def _move(ctx):
    """Step of a MoveCall: the source tensor's bytes into the destination's (no allocation)."""
    ctx[0][:] = ctx[1]


def _jump_false(ctx):
    """Step of a JumpFalseCall: the step to continue at when the condition is
    false (None: the next one). Returns small ints only: no allocation."""
    v = ctx[0]
    if v is not None and v[0]:
        return None
    return ctx[1]


mark(_move)
mark(_jump_false)


def _stream_plan():
    # Imported only when a program is streamed: the module costs RAM otherwise.
    from mpy_et.stream import StreamPlan

    return StreamPlan()


_LAZY = object()  # a tensor value not made yet


def _scalar_list(r, start, n, i):
    """values[i] (of n), an Int, Double or Bool list, as a tuple, made when an
    instruction first needs it: lists made all at the start of the load stay
    scattered among its garbage until their last use (a 224 KB board's heap
    then lacks a few hundred contiguous bytes with 14 KB free). _values
    checked its vector."""
    ev = r.table_at(start, i, _VALUE)
    tag = r.scalar(ev, S.EVALUE_VAL_TYPE, FlatReader.u8, 0, _VALUE)
    pos = r.subtable(ev, S.EVALUE_VAL, _VALUE)
    if tag == S.KERNEL_TYPES_DOUBLE_LIST:
        s, k = r.vector(pos, S.DOUBLE_LIST_ITEMS, 8, _VALUE)
        return r.ints(s, k, "d")
    if tag == S.KERNEL_TYPES_BOOL_LIST:
        s, k = r.vector(pos, S.BOOL_LIST_ITEMS, 1, _VALUE)
        return tuple(bool(b) for b in r.ints(s, k, "B"))
    s, k = r.vector(pos, S.INT_LIST_ITEMS, 8, _VALUE)
    out = [0] * k
    while k:  # each item is the Int value it names, as the program holds it
        k -= 1
        j = r.i64(s + 8 * k, _VALUE)
        if j < 0 or j >= n:
            r.fail("values[%d]" % i, "list item refers to values[%d]; there are %d values" % (j, n))
        ev = r.table_at(start, j, _VALUE)
        if r.scalar(ev, S.EVALUE_VAL_TYPE, FlatReader.u8, 0, _VALUE) != S.KERNEL_TYPES_INT:
            r.fail("values[%d]" % i, "list item values[%d] is not an Int" % j)
        out[k] = r.scalar(r.subtable(ev, S.EVALUE_VAL, _VALUE), S.INT_INT_VAL, FlatReader.i64, 0, _VALUE)
    return tuple(out)


_VALUE = "value"
_INSTRUCTION = "instruction"


def _located(e, placeholder, where):
    """e with its placeholder subject ("value: ...") replaced by where ("values[3]: ...")."""
    msg = e.message
    if msg.startswith(placeholder):
        msg = where + msg[len(placeholder) :]
    return MpyEtError(e.code, msg)


def operator_names(r, plan, w):
    """The plan's operator table as "name.overload" strings."""
    s_ops, n_ops = r.vector(plan, S.EXECUTION_PLAN_OPERATORS, 4, w + " operators")
    names = []
    what = "operator"
    for i in range(n_ops):
        try:
            op = r.table_at(s_ops, i, what)
            name = r.string(op, S.OPERATOR_NAME, what)
            overload = r.string(op, S.OPERATOR_OVERLOAD, what)
        except MpyEtError as e:
            raise _located(e, what, "operators[%d]" % i)
        names.append("%s.%s" % (name, overload) if overload else name)
    return names


def _identity_order(r, start, k):
    """True if the dim_order bytes at start are 0, 1, ..., k-1 (contiguous)."""
    for d in range(k):
        if r.u8(start + d, "dim_order") != d:
            return False
    return True


def _memory_order(order, sizes, r, what):
    """A dim order read from the program: None when the bytes are in the contiguous
    order anyway (only dims of size 1 move), else the order as a tuple."""
    nd = len(sizes)
    seen = 0
    for d in order:
        if d >= nd or seen >> d & 1:
            r.fail(what, "dim_order %s is not a permutation of %d dims" % (list(order), nd))
        seen |= 1 << d
    prev = -1
    for d in order:
        if sizes[d] != 1:
            if d < prev:
                return tuple(order)
            prev = d
    return None


def _misfit(i, name, e):
    return MpyEtError(INVALID_PROGRAM, "instruction %d (%s): arguments do not fit the kernel: %s: %s" % (i, name, type(e).__name__, e))


_COPY_BACK = "aten::copy_"
_ET_VIEW = "executorch_prim::et_view.default"
_COPY_INDEX = "executorch_prim::et_copy_index.tensor"
# The host lays captured intermediates out from the program's sizes: the bound.
_CAPTURE_AT_BOUND = "%s: capturing intermediates (EventTracer(capture=True)) needs every dynamic tensor at its bound shape"


def _planned_in(t, buffers):
    """True if tensor t lies in one of the planned buffers."""
    for b in buffers:
        if t.buf is b:
            return True
    return False


def _check_storage(i, name, args):
    k = len(args)
    while k:  # not `for`: keeps this frame small enough for the C stack (no heap)
        k -= 1
        a = args[k]
        if isinstance(a, Tensor) and a.data is None:
            _no_storage(i, name, a)


def _check_written(i, name, v, constants):
    """The tensor(s) instruction i writes (its return slot, et_copy_index's
    copy_to) must not be constants: a step would write into the program."""
    if isinstance(v, Tensor):
        v = (v,)
    elif not isinstance(v, list) or name == _ET_VIEW:  # et_view's out is an alias of its input
        return
    for t in v:
        if isinstance(t, Tensor) and t.buf is constants and constants is not None:
            raise MpyEtError(
                INVALID_PROGRAM, "instruction %d (%s) writes a %s constant tensor (data in the program)" % (i, name, list(t.sizes))
            )


def _no_storage(i, name, a):
    raise MpyEtError(
        INVALID_PROGRAM,
        "instruction %d (%s): a %s tensor argument has no storage (not constant, planned or an input)" % (i, name, list(a.sizes)),
    )


def _kernel_arg_count(args, values):
    """How many leading args go to the kernel: all but the return slot
    ExecuTorch appends to a kernel call's arguments.

    An out variant's return values are its out tensors, passed a second time:
    the same value index, or a TensorList of the outs when there are several;
    an in-place op (aten::copy_) returns self, its first argument.
    """
    n = len(args)
    if n >= 2 and (args[-1] == args[-2] or args[-1] == args[0]):  # out variant, or in place (copy_): self
        return n - 1
    if n and isinstance(values[args[-1]], list):
        return _list_return(args, values, n)
    return n


def _list_return(args, values, n):
    last = values[args[-1]]
    k = len(last)
    if not k or n <= k:
        return n
    for j in range(k):
        if last[j] is not values[args[n - 1 - k + j]]:
            return n
    return n - 1

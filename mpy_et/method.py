"""Method: values bound to storage, kernels resolved, instructions pre-bound.

Everything that can be decided once is decided in Method.__init__ (load
time). execute() only walks a list of (step, ctx) pairs.
"""

from mpy_et import dtypes
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
from mpy_et.tensor import Tensor

_MAX_BUFFER = 1 << 31  # planned buffers above 2 GiB are treated as corrupt


class Method:
    """A loaded method. Create through Program.load_method()."""

    def __init__(self, program, name, plan, buffers, registry):
        self.name = name
        self.program = program
        r = program.reader
        w = "method %r" % name
        self._check_unsupported(r, plan, w)
        self.buffers = self._planned_buffers(r, plan, buffers, w)
        self.planned_bytes = sum(len(b) for b in self.buffers)
        values = self._values(r, plan, w)
        self._inputs = self._io(r, plan, S.EXECUTION_PLAN_INPUTS, values, w + " inputs")
        self._outputs = self._io(r, plan, S.EXECUTION_PLAN_OUTPUTS, values, w + " outputs")
        for i, t in enumerate(self._inputs):
            if not isinstance(t, Tensor):
                raise MpyEtError(NOT_SUPPORTED, "%s: input %d is %s; only tensor inputs are supported" % (w, i, type(t).__name__))
            if t.data is None:  # supplied at input time: give it its own buffer
                t.bind(bytearray(t.nbytes), 0)
        self._steps, self._step_ops = self._instructions(r, plan, values, registry, w)

    # -- load time ---------------------------------------------------------

    def _check_unsupported(self, r, plan, w):
        start, n = r.vector(plan, S.EXECUTION_PLAN_DELEGATES, 4, w + " delegates")
        if n:
            ids = [r.string(r.table_at(start, i, w), S.BACKEND_DELEGATE_ID, w) for i in range(n)]
            raise MpyEtError(NOT_SUPPORTED, "%s uses backend delegates %s; mpy_et runs portable kernels only" % (w, ids))

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
        lists = []
        for i in range(n):
            what = "values[%d]" % i
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
                values[i] = self._tensor(r, pos, what)
            elif tag == S.KERNEL_TYPES_DOUBLE_LIST:
                s, k = r.vector(pos, S.DOUBLE_LIST_ITEMS, 8, what)
                values[i] = r.ints(s, k, "d")
            elif tag == S.KERNEL_TYPES_BOOL_LIST:
                s, k = r.vector(pos, S.BOOL_LIST_ITEMS, 1, what)
                values[i] = tuple(bool(b) for b in r.ints(s, k, "B"))
            elif tag == S.KERNEL_TYPES_INT_LIST:
                s, k = r.vector(pos, S.INT_LIST_ITEMS, 8, what)
                lists.append((i, tag, r.ints(s, k, "q")))
            elif tag in (S.KERNEL_TYPES_TENSOR_LIST, S.KERNEL_TYPES_OPTIONAL_TENSOR_LIST):
                s, k = r.vector(pos, S.TENSOR_LIST_ITEMS, 4, what)  # same slot in OptionalTensorList
                lists.append((i, tag, r.ints(s, k, "i")))
            else:
                r.fail(what, "unknown value type tag %d" % tag)
        # Boxed lists hold value indices; resolve them once all values exist.
        for i, tag, items in lists:
            out = []
            for j in items:
                if j < 0 or j >= n:
                    r.fail("values[%d]" % i, "list item refers to values[%d]; there are %d values" % (j, n))
                v = values[j]
                if tag == S.KERNEL_TYPES_INT_LIST:
                    ok = isinstance(v, int) and not isinstance(v, bool)
                elif tag == S.KERNEL_TYPES_TENSOR_LIST:
                    ok = isinstance(v, Tensor)
                else:
                    ok = v is None or isinstance(v, Tensor)
                if not ok:
                    r.fail("values[%d]" % i, "list item values[%d] has the wrong type (%s)" % (j, type(v).__name__))
                out.append(v)
            values[i] = tuple(out) if tag == S.KERNEL_TYPES_INT_LIST else out
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
        if dyn != S.TENSOR_SHAPE_DYNAMISM_STATIC:
            raise MpyEtError(
                NOT_SUPPORTED, "%s: dynamic shapes (shape_dynamism %d) are not supported; export with static shapes" % (what, dyn)
            )
        s, k = r.vector(pos, S.TENSOR_SIZES, 4, what)
        sizes = r.ints(s, k, "i")
        limit = len(self.program.buf) + self.planned_bytes
        numel = 1
        for d in sizes:
            if d < 0:
                r.fail(what, "negative size %d in %s" % (d, list(sizes)))
            numel *= d
            if numel > limit:
                r.fail(what, "sizes %s describe more data than the program and its buffers hold" % (list(sizes),))
        s, k = r.vector(pos, S.TENSOR_DIM_ORDER, 1, what)
        if k:
            if k != len(sizes):
                r.fail(what, "dim_order has %d entries for %d dims" % (k, len(sizes)))
            if not _identity_order(r, s, k):
                order = r.ints(s, k, "B")
                raise MpyEtError(
                    NOT_SUPPORTED, "%s: dim_order %s (e.g. channels-last) is not supported; only contiguous tensors" % (what, list(order))
                )
        extra = r.subtable(pos, S.TENSOR_EXTRA_TENSOR_INFO, what)
        if extra and r.scalar(extra, S.EXTRA_TENSOR_INFO_LOCATION, FlatReader.u8, 0, what) != S.TENSOR_DATA_LOCATION_SEGMENT:
            raise MpyEtError(NOT_SUPPORTED, "%s: tensor data stored outside the program (external .ptd) is not supported" % what)
        t = Tensor(dtype, sizes)
        idx = r.scalar(pos, S.TENSOR_DATA_BUFFER_IDX, FlatReader.u32, 0, what)
        alloc = r.subtable(pos, S.TENSOR_ALLOCATION_INFO, what)
        if idx and alloc:
            raise MpyEtError(NOT_SUPPORTED, "%s: mutable tensor with an initial value (mutable buffer) is not supported" % what)
        if idx:
            t.bind(self.program.buf, self.program.constant(idx, t.nbytes, what))
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
            t.bind(self.buffers[mem - 1], off)
        return t

    def _io(self, r, plan, slot, values, what):
        s, k = r.vector(plan, slot, 4, what)
        out = []
        for j in r.ints(s, k, "i"):
            if j < 0 or j >= len(values):
                r.fail(what, "refers to values[%d]; there are %d values" % (j, len(values)))
            out.append(values[j])
        return out

    def _instructions(self, r, plan, values, registry, w):
        s, n_chains = r.vector(plan, S.EXECUTION_PLAN_CHAINS, 4, w + " chains")
        if n_chains > 1:
            raise MpyEtError(NOT_SUPPORTED, "%s has %d chains; only one is supported" % (w, n_chains))
        op_names = operator_names(r, plan, w)
        n_ops = len(op_names)
        calls = []
        if n_chains:
            chain = r.table_at(s, 0, "chains[0]")
            si, n = r.vector(chain, S.CHAIN_INSTRUCTIONS, 4, "chains[0].instructions")
            for i in range(n):
                what = "instruction %d" % i
                ins = r.table_at(si, i, what)
                tag = r.scalar(ins, S.INSTRUCTION_INSTR_ARGS_TYPE, FlatReader.u8, 0, what)
                pos = r.subtable(ins, S.INSTRUCTION_INSTR_ARGS, what)
                if tag == S.INSTRUCTION_ARGUMENTS_FREE_CALL:
                    continue  # storage is planned ahead of time: nothing to free
                if tag == S.INSTRUCTION_ARGUMENTS_DELEGATE_CALL:
                    raise MpyEtError(NOT_SUPPORTED, "%s: delegate calls are not supported" % what)
                if tag in (S.INSTRUCTION_ARGUMENTS_MOVE_CALL, S.INSTRUCTION_ARGUMENTS_JUMP_FALSE_CALL):
                    raise MpyEtError(NOT_SUPPORTED, "%s: control flow (move/jump) is not supported" % what)
                if tag != S.INSTRUCTION_ARGUMENTS_KERNEL_CALL or not pos:
                    r.fail(what, "unknown or empty instruction (type tag %d)" % tag)
                op = r.scalar(pos, S.KERNEL_CALL_OP_INDEX, FlatReader.i32, 0, what)
                if op < 0 or op >= n_ops:
                    r.fail(what, "op_index %d out of range (%d operators)" % (op, n_ops))
                sa, na = r.vector(pos, S.KERNEL_CALL_ARGS, 4, what + " args")
                args = r.ints(sa, na, "i")
                for a in args:
                    if a < 0 or a >= len(values):
                        r.fail(what, "(%s) argument refers to values[%d]; there are %d values" % (op_names[op], a, len(values)))
                calls.append((i, op_names[op], args))
        uses = {}
        for i, name, _ in calls:
            uses.setdefault(name, []).append(i)
        kernels = resolve([nm for nm in op_names if nm in uses], uses, registry)
        steps, step_ops = [], []
        for i, name, args in calls:
            step = self._prepare(i, name, kernels[name], [values[a] for a in _drop_return(args, values)])
            if step is not None:
                steps.append(step)
                step_ops.append((i, name))
        return steps, step_ops

    def _prepare(self, i, name, kernel, args):
        try:
            step = kernel(*args)
        except MpyEtError as e:
            raise MpyEtError(e.code, "instruction %d (%s): %s" % (i, name, e.message))
        except (TypeError, ValueError, IndexError) as e:
            raise MpyEtError(
                INVALID_PROGRAM, "instruction %d (%s): arguments do not fit the kernel: %s: %s" % (i, name, type(e).__name__, e)
            )
        for a in args:
            if isinstance(a, Tensor) and a.data is None:
                raise MpyEtError(
                    INVALID_PROGRAM,
                    "instruction %d (%s): a %s tensor argument has no storage (not constant, planned or an input)"
                    % (i, name, list(a.sizes)),
                )
        return step

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
        """Copy data (bytes, array, Tensor or list) into input i, checking dtype and size."""
        t = self.input(i)
        try:
            t.copy_from(data)
        except MpyEtError as e:
            raise MpyEtError(e.code, "%s input %d: %s" % (self.name, i, e.message))

    def _check_index(self, i, items, kind):
        if not 0 <= i < len(items):
            raise MpyEtError(INVALID_ARGUMENT, "%s has %d %ss; %s %d does not exist" % (self.name, len(items), kind, kind, i))

    def execute(self):
        """Run every instruction once.

        Does not allocate: each step is a pre-bound (function, context) pair.
        (Float kernels box float results on ports whose floats live on the
        heap.) This loop is the one place an event tracer or a delegate call
        hooks in: both are just steps.
        """
        i = 0
        try:
            for step, ctx in self._steps:
                step(ctx)
                i += 1
        except MpyEtError:
            raise
        except Exception as e:
            k, name = self._step_ops[i]
            raise MpyEtError(INTERNAL, "instruction %d (%s) failed: %s: %s" % (k, name, type(e).__name__, e))


def operator_names(r, plan, w):
    """The plan's operator table as "name.overload" strings."""
    s_ops, n_ops = r.vector(plan, S.EXECUTION_PLAN_OPERATORS, 4, w + " operators")
    names = []
    for i in range(n_ops):
        op = r.table_at(s_ops, i, "operators[%d]" % i)
        name = r.string(op, S.OPERATOR_NAME, "operators[%d]" % i)
        overload = r.string(op, S.OPERATOR_OVERLOAD, "operators[%d]" % i)
        names.append(name + "." + overload if overload else name)
    return names


def _identity_order(r, start, k):
    """True if the dim_order bytes at start are 0, 1, ..., k-1 (contiguous)."""
    for d in range(k):
        if r.u8(start + d, "dim_order") != d:
            return False
    return True


def _drop_return(args, values):
    """Drop the return slot ExecuTorch appends to a kernel call's arguments.

    An out variant's return values are its out tensors, passed a second time:
    the same value index, or a TensorList of the outs when there are several.
    """
    n = len(args)
    if n >= 2 and args[-1] == args[-2]:
        return args[:-1]
    last = values[args[-1]] if n else None
    if isinstance(last, list) and last and n > len(last):
        k = len(last)
        if all(last[j] is values[args[n - 1 - k + j]] for j in range(k)):
            return args[:-1]
    return args

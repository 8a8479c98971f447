"""EventTracer: the start and end tick of every instruction of Method.execute().

    from mpy_et.event_tracer import EventTracer
    tracer = EventTracer(runs=4)
    method.set_event_tracer(tracer)  # allocates room for 4 executions of this method
    method.execute()                 # records; allocates nothing
    tracer.runs                      # executions recorded so far
    tracer.run_ticks(0)              # run 0: [execute start, step 0 start, step 0 end, ..., execute end]

The device only records raw numbers; the host turns them into ExecuTorch's
ETDump (host_tools/devtools/etdump.py). One run takes 2 * steps + 2 ticks:
the whole execute() first and last, each step's start and end between
(method.step_ops() names the steps: (instruction index, operator)).
A method with jumps (torch.cond, map loops) runs some steps never and some
many times: its runs hold, in each step's two places, the ticks spent in
that step in all and how many times it ran (tracer.totals is True).
Ticks are port.ticks_us() values (microseconds, wrapping as time.ticks_us
does: take differences with port.ticks_diff); under QEMU -icount shift=0 one
microsecond is 1000 board instructions. time.ticks_cpu() is not used: it
returns 0 on the unix and QEMU ports. A CircuitPython board without
time.ticks_us falls back to time.monotonic_ns() (port.py), whose big ints
allocate: profiling still works there (CircuitPython has no heap lock).

Recording allocates nothing: the ticks array is made by set_event_tracer(),
and ticks_us() returns small ints (below 2**30 on 32-bit ports; the array's
'l' items are at least 32 bits), so heap-locked (int8) programs stay locked.

EventTracer(capture=True) also copies every step's outputs, right after the
step, into one debug buffer (`tracer.debug`, allocated by set_event_tracer:
the sum of all steps' output bytes), in step order: the intermediates of
the latest run, for a numeric debugger. The copies are slice assignments
between memoryviews made at bind time: nothing allocated either.
"""

from array import array

from mpy_et import dtypes
from mpy_et import schema as S
from mpy_et.errors import INVALID_ARGUMENT, INVALID_STATE, MEMORY_ALLOCATION_FAILED, NOT_SUPPORTED, MpyEtError
from mpy_et.flatbuf import FlatReader

UNIT = "us"  # what a tick is (port.ticks_us)


class EventTracer:
    def __init__(self, runs=1, capture=False):
        if not isinstance(runs, int) or runs < 1:
            raise MpyEtError(INVALID_ARGUMENT, "EventTracer(runs=%r): runs must be a positive int" % (runs,))
        self.capacity = runs
        self.capture = bool(capture)
        self.runs = 0
        self.per_run = 0  # ticks per run: 2 * steps + 2, set by bind()
        self.totals = False  # bind(): a method with jumps (per step: ticks in all, times run)
        self.ticks = None
        self.debug = None  # capture: the latest run's step outputs, in step order
        self.steps = self.ctxs = None  # capture: the method's steps, each followed by copies of its outputs

    def bind(self, method):
        """Allocate room for `capacity` runs of `method` (Method.set_event_tracer
        calls this; it forgets earlier runs); with capture, also the debug
        buffer and the steps that fill it."""
        self.steps = self.ctxs = self.debug = None
        if self.capture:
            self._capture(method._steps, method._ctxs, step_outputs(method))
        self.per_run = 2 * len(method._steps) + 2
        self.totals = method._jumps
        self.runs = 0
        self.ticks = None  # free the old array before making the new one
        try:
            self.ticks = array("l", bytearray(_ITEM * self.per_run * self.capacity))  # a raw copy on every port
        except MemoryError:
            raise MpyEtError(
                MEMORY_ALLOCATION_FAILED, "event tracer: no heap for %d runs of %d ticks; fewer runs" % (self.capacity, self.per_run)
            )

    def begin(self):
        """Count a new run (Method.execute, before it runs: its ticks start at
        (runs - 1) * per_run). Raises when all `capacity` runs are used
        (reset() to record again)."""
        k = self.runs
        if self.ticks is None:
            raise MpyEtError(INVALID_STATE, "event tracer is not bound to a method: method.set_event_tracer(tracer)")
        if k >= self.capacity:
            raise MpyEtError(INVALID_STATE, "event tracer is full (%d runs recorded): tracer.reset() or EventTracer(runs=N)" % k)
        self.runs = k + 1

    def _capture(self, steps, ctxs, outputs):
        total = 0
        for outs in outputs:
            for v in outs:
                total += len(v)
        try:
            self.debug = bytearray(total)
        except MemoryError:
            raise MpyEtError(MEMORY_ALLOCATION_FAILED, "event tracer: no heap for %d bytes of intermediate outputs" % total)
        mv = memoryview(self.debug)
        wrapped, contexts, off = [], [], 0
        for step, ctx, outs in zip(steps, ctxs, outputs):
            copies = []
            for v in outs:
                copies.append((v, mv[off : off + len(v)]))
                off += len(v)
            wrapped.append(_captured)
            contexts.append((step, ctx, tuple(copies)))
        self.steps, self.ctxs = wrapped, contexts

    def reset(self):
        """Forget the recorded runs (the array is kept)."""
        self.runs = 0

    def run_ticks(self, run):
        """The ticks of recorded run `run` (a list; allocates)."""
        if not 0 <= run < self.runs:
            raise MpyEtError(INVALID_ARGUMENT, "event tracer has %d runs; run %d does not exist" % (self.runs, run))
        k = run * self.per_run
        return list(self.ticks[k : k + self.per_run])


def step_outputs(method):
    """Per step (method.step_ops() order), memoryviews over the arena of the
    tensors it writes (the call's last argument: its out tensor, or the list
    of them). Made once, at bind time."""
    r = method.program.reader
    plan = method._plan
    vs, _ = r.vector(plan, S.EXECUTION_PLAN_VALUES, 4, "values")
    s, _ = r.vector(plan, S.EXECUTION_PLAN_CHAINS, 4, "chains")
    si, _ = r.vector(r.table_at(s, 0, "chains[0]"), S.CHAIN_INSTRUCTIONS, 4, "instructions")
    out = []
    for i, _ in method.iter_step_ops():
        call = r.subtable(r.table_at(si, i, "instruction"), S.INSTRUCTION_INSTR_ARGS, "call")
        sa, na = r.vector(call, S.KERNEL_CALL_ARGS, 4, "args")
        ev = r.table_at(vs, r.ints(sa, na, "i")[-1], "values")
        items = [r.subtable(ev, S.EVALUE_VAL, "values")]
        if r.scalar(ev, S.EVALUE_VAL_TYPE, FlatReader.u8, 0, "values") == S.KERNEL_TYPES_TENSOR_LIST:
            s2, k = r.vector(items[0], S.TENSOR_LIST_ITEMS, 4, "items")
            items = [r.subtable(r.table_at(vs, j, "values"), S.EVALUE_VAL, "values") for j in r.ints(s2, k, "i")]
        views = []
        for t in items:
            alloc = r.subtable(t, S.TENSOR_ALLOCATION_INFO, "tensor")
            if not alloc:
                raise MpyEtError(NOT_SUPPORTED, "instruction %d: its output is not a planned tensor; cannot capture it" % i)
            n = dtypes.itemsize(r.scalar(t, S.TENSOR_SCALAR_TYPE, FlatReader.u8, 0, "tensor"))
            sz, k = r.vector(t, S.TENSOR_SIZES, 4, "sizes")
            for d in r.ints(sz, k, "i"):
                n *= d
            mem = r.scalar(alloc, S.ALLOCATION_DETAILS_MEMORY_ID, FlatReader.u32, 0, "tensor")
            off = r.scalar(alloc, S.ALLOCATION_DETAILS_MEMORY_OFFSET_LOW, FlatReader.u32, 0, "tensor")
            off += r.scalar(alloc, S.ALLOCATION_DETAILS_MEMORY_OFFSET_HIGH, FlatReader.u32, 0, "tensor") << 32
            views.append(memoryview(method.buffers[mem - 1])[off : off + n])
        out.append(views)
    return out


def _captured(ctx):
    """Step: run the kernel's step, then copy its outputs into the debug buffer (no allocation)."""
    step, kctx, copies = ctx
    step(kctx)
    for src, dst in copies:
        dst[:] = src


_ITEM = len(bytes(array("l", [0])))  # bytes per item: 4 on 32-bit ports, 8 on 64-bit unix and CPython

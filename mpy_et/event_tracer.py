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

from mpy_et.errors import INVALID_ARGUMENT, INVALID_STATE, MEMORY_ALLOCATION_FAILED, MpyEtError

UNIT = "us"  # what a tick is (port.ticks_us)


class EventTracer:
    def __init__(self, runs=1, capture=False):
        if not isinstance(runs, int) or runs < 1:
            raise MpyEtError(INVALID_ARGUMENT, "EventTracer(runs=%r): runs must be a positive int" % (runs,))
        self.capacity = runs
        self.capture = bool(capture)
        self.runs = 0
        self.per_run = 0  # ticks per run: 2 * steps + 2, set by bind()
        self.ticks = None
        self.debug = None  # capture: the latest run's step outputs, in step order
        self.steps = self.ctxs = None  # capture: the method's steps, each followed by copies of its outputs

    def bind(self, n_steps, steps=None, ctxs=None, outputs=None):
        """Allocate room for `capacity` runs of a method of n_steps steps
        (Method.set_event_tracer calls this; it forgets earlier runs). With
        capture: steps, ctxs and outputs (per step, memoryviews of its output
        tensors' bytes) give the steps to run instead."""
        self.steps = self.ctxs = self.debug = None
        if self.capture:
            self._capture(steps, ctxs, outputs)
        self.per_run = 2 * n_steps + 2
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


def _captured(ctx):
    """Step: run the kernel's step, then copy its outputs into the debug buffer (no allocation)."""
    step, kctx, copies = ctx
    step(kctx)
    for src, dst in copies:
        dst[:] = src


_ITEM = len(bytes(array("l", [0])))  # bytes per item: 4 on 32-bit ports, 8 on 64-bit unix and CPython

# Runs on the target (CPython or MicroPython). host_tools.run (host_tools/targets/run.py) stages this with
# job.json, the .pte and raw input files in DATA_DIR (a global set before this
# runs). It prints one line per output, "MPY_ET_OUTPUT <index> <dtype> <sizes> <hex>"
# (the hex written in chunks, never held whole), then "MPY_ET_RESULT <stats json>".
# The harness must not change what fits: the method is loaded once (a second
# load, for the runtime's cost with the kernels already imported, only when
# job["reload"]), and a heap that runs out anywhere ends the run with
# "MPY_ET_ERROR <what was being done>: ..." naming the free heap.
import gc
import json
import sys

import mpy_et
from mpy_et.port import IS_MICROPYTHON, ticks_diff, ticks_us
from mpy_et.tensor import Tensor

if IS_MICROPYTHON:
    import micropython

    def allocated():
        return micropython.mem_total()

    def used():
        if "GC_DISABLED" in globals():
            return None  # collecting is unsafe there: see host_tools/targets/ports.py
        gc.collect()
        return gc.mem_alloc()

    def free():
        return None if "GC_DISABLED" in globals() else gc.mem_free()

else:

    def allocated():
        return None

    def used():
        return None

    def free():
        return None


def delta(a, b):
    return None if a is None else b - a


try:
    from binascii import hexlify as _hex
except ImportError:  # a port without binascii
    _hex = None


def hexlify(view):
    if _hex is not None:
        return _hex(view).decode()  # in C: one string, not one per byte
    return "".join("%02x" % b for b in bytes(view))


_CHUNK = 256  # output bytes hexlified per print


def print_output(i, t):
    view = t.buffer
    print("MPY_ET_OUTPUT %d %d %s " % (i, t.dtype, ",".join(str(d) for d in t.sizes)), end="")
    for a in range(0, len(view), _CHUNK):
        print(hexlify(view[a : a + _CHUNK]), end="")
    print()


def read_input(spec, buf):
    with open(DATA_DIR + "/" + spec["file"], "rb") as f:  # noqa: F821
        if f.readinto(buf) != len(buf):
            raise ValueError("input file %s is shorter than %d bytes" % (spec["file"], len(buf)))


def input_fillers(job, method):
    """One function per input that puts the input's bytes into the method
    before an execute(). An input the method takes as it is (same dtype and
    sizes) is read from its file straight into the method's input tensor, as
    a camera or microphone driver would write it: no second copy of a large
    input in RAM (mobilenet_v1_025's float input is 110 KB). Any other is
    read once into a tensor of its own and passed to set_input (which checks
    it, or resizes a dynamic input)."""
    fillers = []
    for i, spec in enumerate(job["inputs"]):
        t = method.input(i)
        if t.dtype == spec["dtype"] and tuple(t.sizes) == tuple(spec["sizes"]) and t.buf is not None:
            fillers.append(lambda t=t, spec=spec: read_input(spec, t.buffer))
            continue
        with open(DATA_DIR + "/" + spec["file"], "rb") as f:  # noqa: F821
            buf = bytearray(f.seek(0, 2))
        read_input(spec, buf)
        given = Tensor(spec["dtype"], tuple(spec["sizes"]))
        given.bind(buf, 0)
        fillers.append(lambda i=i, given=given: method.set_input(i, given))
    return fillers


def main(job):
    global PHASE
    ballast = None
    if job.get("free_at_load"):  # leave exactly this much heap free for the load (a smaller board)
        gc.collect()
        spare = free() - job["free_at_load"]
        if spare > 0:
            ballast = bytearray(spare)
    PHASE = "loading the program"
    heap0 = used()
    free0 = free()
    t0 = ticks_us()
    # job["pte"]: relative to DATA_DIR, or absolute (a program already on the board: ROMFS, a flashed dist)
    pte = job["pte"] if job["pte"].startswith("/") else DATA_DIR + "/" + job["pte"]  # noqa: F821 (set by the runner)
    program = mpy_et.Program.load(pte, job.get("stream", False))
    heap1 = used()
    PHASE = "loading the method (kernel imports included)"
    t1 = ticks_us()
    a1 = allocated()
    kernels = __import__(job["kernels"]).KERNELS if job.get("kernels") else None  # custom operators' kernels, next to the program
    method = program.load_method(job["method"], kernels=kernels)  # first load imports kernel modules
    load_alloc = delta(a1, allocated())
    t2 = ticks_us()
    heap2 = used()
    free2 = free()
    t3 = t4 = heap3 = heap4 = None
    if job.get("reload"):
        # Load again for the runtime's own cost (as with frozen or cached kernels).
        PHASE = "loading the method a second time"
        del method
        scratch = sys.modules.get("portable_kernels.util.scratch")
        if scratch is not None:
            scratch.reset()  # so the second load counts the shared scratch its layers need
        heap3 = used()
        a1 = allocated()
        t3 = ticks_us()
        method = program.load_method(job["method"], kernels=kernels)
        t4 = ticks_us()
        load_alloc = delta(a1, allocated())
        heap4 = used()

    PHASE = "reading the inputs"
    fillers = input_fillers(job, method)

    def set_inputs():
        # A program may reuse its input bytes for later tensors (ExecuTorch's
        # planner does): set the inputs before every execute().
        for fill in fillers:
            fill()

    PHASE = "executing"
    set_inputs()
    method.execute()  # warm-up
    set_inputs()
    locked = getattr(method, "lock_heap", False)
    if locked and IS_MICROPYTHON:
        # execute() locks the heap itself: mem_total() would also count the
        # allocations it refused (py/malloc.c counts m_malloc_maybe attempts),
        # and nothing can be freed or collected while the heap is locked, so
        # the change of gc.mem_alloc() is exactly what execute() allocated.
        a0 = gc.mem_alloc()
        method.execute()
        execute_heap = gc.mem_alloc() - a0
    else:
        a0 = allocated()
        method.execute()
        execute_heap = delta(a0, allocated())
    times = []
    for _ in range(job["repeat"]):
        set_inputs()
        t = ticks_us()
        method.execute()
        times.append(ticks_diff(ticks_us(), t))
    times.sort()
    heap_lock_ok = None
    if job["heap_lock"]:
        set_inputs()
        micropython.heap_lock()
        try:
            method.execute()
            heap_lock_ok = True
        except MemoryError:
            heap_lock_ok = False
        finally:
            micropython.heap_unlock()
    profile = profile_runs(job, method, set_inputs, locked) if job.get("profile") else {}
    PHASE = "reporting the results"
    for i in range(method.outputs_size()):
        print_output(i, method.output(i))
    stats = {
        "load_us": ticks_diff(t1, t0) + (ticks_diff(t2, t1) if t3 is None else ticks_diff(t4, t3)),
        "program_load_us": ticks_diff(t1, t0),
        "method_load_us": None if t3 is None else ticks_diff(t4, t3),
        "first_method_load_us": ticks_diff(t2, t1),
        "reloaded": bool(job.get("reload")),
        "execute_us": times[len(times) // 2],
        "execute_us_min": times[0],
        "execute_heap_bytes": execute_heap,
        "execute_heap_locked": locked,
        "arena_bytes": method.planned_bytes,
        "stream_scratch_bytes": method.stream_scratch_bytes,
        "program_heap_bytes": delta(heap0, heap1),
        "first_load_method_heap_bytes": delta(heap1, heap2),
        "load_method_heap_bytes": None if heap3 is None else delta(heap3, heap4),
        "load_method_alloc_bytes": load_alloc,
        "heap_free_before_load": free0,
        "ballast_bytes": len(ballast) if ballast is not None else 0,  # held until here: free_at_load
        "heap_free_after_load": free2,
        "heap_lock_ok": heap_lock_ok,
    }
    stats.update(profile)
    print("MPY_ET_RESULT " + json.dumps(stats))


def profile_runs(job, method, set_inputs, locked):
    """Execute job["profile"] times with an event tracer (mpy_et/event_tracer.py);
    print its ticks, one "MPY_ET_TRACE <tick> ..." line per run, with
    job["capture"] the last run's step outputs, "MPY_ET_DEBUG <hex>", and the
    steps, "MPY_ET_STEPS <instruction> <operator> ...". Returns the profiling stats."""
    global PHASE
    from mpy_et.event_tracer import UNIT, EventTracer

    PHASE = "profiling"
    runs = job["profile"]
    tracer = EventTracer(runs, job.get("capture", False))
    method.set_event_tracer(tracer)
    heap, times = None, []
    for _ in range(runs):
        set_inputs()
        a0 = gc.mem_alloc() if locked and IS_MICROPYTHON else allocated()
        t = ticks_us()
        method.execute()
        times.append(ticks_diff(ticks_us(), t))
        a1 = gc.mem_alloc() if locked and IS_MICROPYTHON else allocated()
        heap = delta(a0, a1) if heap is None or a0 is None else max(heap, a1 - a0)
    method.set_event_tracer(None)
    for r in range(tracer.runs):
        print("MPY_ET_TRACE", end="")
        k = r * tracer.per_run
        for j in range(k, k + tracer.per_run):
            print("", tracer.ticks[j], end="")
        print()
    if tracer.debug is not None:  # every step's outputs, the last run's
        print("MPY_ET_DEBUG ", end="")
        view = memoryview(tracer.debug)
        for a in range(0, len(view), _CHUNK):
            print(hexlify(view[a : a + _CHUNK]), end="")
        print()
    print("MPY_ET_STEPS", end="")
    for i, name in method.iter_step_ops():  # no list: a long program's pairs may not fit
        print("", i, name, end="")
    print()
    times.sort()
    stats = {"profile_unit": UNIT, "profile_execute_us": times[len(times) // 2], "profile_heap_bytes": heap}
    stats["profile_totals"] = tracer.totals  # a method with jumps: per step, ticks in all and times run
    return stats


def run(job):
    """main(job), a heap that runs out reported as one line naming the phase."""
    try:
        main(job)
    except MemoryError as e:
        gc.collect()
        heap = "" if free() is None else "; %d bytes free after a collection" % free()
        print("MPY_ET_ERROR MemoryAllocationFailed while %s: %s%s" % (PHASE, e, heap))
        raise


PHASE = "starting"
with open(DATA_DIR + "/job.json") as f:  # noqa: F821
    _job = json.load(f)
run(_job)

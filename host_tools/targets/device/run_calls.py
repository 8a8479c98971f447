# Runs on the target (CPython or MicroPython). host_tools.run_calls (host_tools/targets/calls.py)
# stages this with job.json, the .pte and raw input files in DATA_DIR (a global set before this
# runs). It loads the program once and each method named in the calls once, then makes the calls
# in order, so state (mutable buffers) carries from one call to the next. Per call it prints one
# "MPY_ET_OUTPUT <index> <dtype> <sizes> <hex>" line per output, then "MPY_ET_RESULT <stats json>".
import gc
import json

import mpy_et
from mpy_et.port import IS_MICROPYTHON, ticks_diff, ticks_us
from mpy_et.tensor import Tensor

if IS_MICROPYTHON:
    import micropython

try:
    from binascii import hexlify as _hex
except ImportError:  # a port without binascii
    _hex = None


def hexlify(view):
    if _hex is not None:
        return _hex(view).decode()
    return "".join("%02x" % b for b in bytes(view))


def print_output(i, t):
    view = t.buffer
    print("MPY_ET_OUTPUT %d %d %s " % (i, t.dtype, ",".join(str(d) for d in t.sizes)), end="")
    for a in range(0, len(view), 256):
        print(hexlify(view[a : a + 256]), end="")
    print()


def read_tensor(spec):
    with open(DATA_DIR + "/" + spec["file"], "rb") as f:  # noqa: F821 (set by the runner)
        buf = bytearray(f.seek(0, 2))
        f.seek(0)
        f.readinto(buf)
    t = Tensor(spec["dtype"], tuple(spec["sizes"]))
    t.bind(buf, 0)
    return t


def measured(fn, locked):
    """(microseconds, bytes allocated) of fn(); None bytes on CPython. With
    `locked` (fn locks the heap itself), gc.mem_alloc() counts exactly what it
    allocated (micropython.mem_total() would also count refused attempts)."""
    count = None
    if IS_MICROPYTHON:
        if "GC_DISABLED" not in globals():  # wasm: collecting is unsafe there (host_tools/targets/ports.py)
            gc.collect()
        count = gc.mem_alloc if locked else getattr(micropython, "mem_total", None)
    a0 = count() if count else None
    t = ticks_us()
    fn()
    us = ticks_diff(ticks_us(), t)
    return us, (count() - a0 if count else None)


def reset_locked(method):
    """reset_state() under micropython.heap_lock(): True if it allocated nothing."""
    micropython.heap_lock()
    try:
        method.reset_state()
        return True
    except MemoryError:
        return False
    finally:
        micropython.heap_unlock()


def main(job):
    program = mpy_et.Program.load(DATA_DIR + "/" + job["pte"])  # noqa: F821
    methods = {}
    kernels = __import__(job["kernels"]).KERNELS if job.get("kernels") else None  # custom operators' kernels
    for k, call in enumerate(job["calls"]):
        name = call["method"]
        first = name not in methods
        if first:
            t = ticks_us()
            methods[name] = program.load_method(name, kernels=kernels)
            load_us = ticks_diff(ticks_us(), t)
        method = methods[name]
        stats = {"call": k, "method": name, "action": call["action"]}
        if first:
            stats.update(load_us=load_us, arena_bytes=method.planned_bytes, state_bytes=method.state_bytes)
        if call["action"] == "reset_state":
            stats["execute_us"], stats["execute_heap_bytes"] = measured(method.reset_state, False)
            if IS_MICROPYTHON and hasattr(micropython, "heap_lock"):
                stats["reset_heap_locked"] = reset_locked(method)
        else:
            given = [read_tensor(spec) for spec in call["inputs"]]
            t = ticks_us()
            for i, g in enumerate(given):
                method.set_input(i, g)  # resizes a dynamic input (mpy_et/dynamic.py)
            stats["set_input_us"] = ticks_diff(ticks_us(), t)
            stats["execute_heap_locked"] = method.lock_heap
            stats["execute_us"], stats["execute_heap_bytes"] = measured(method.execute, method.lock_heap)
            for i in range(method.outputs_size()):
                if method.output(i) is not None:  # a method returning None has a Null output
                    print_output(i, method.output(i))
        print("MPY_ET_RESULT " + json.dumps(stats))


with open(DATA_DIR + "/job.json") as f:  # noqa: F821
    main(json.load(f))

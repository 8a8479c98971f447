"""What differs between CPython, MicroPython and CircuitPython, detected once.

Everything else in mpy_et and portable_kernels imports these names instead of
probing the port itself.
"""

try:
    from micropython import const

    IS_MICROPYTHON = True
except ImportError:  # CPython

    def const(x):
        return x

    IS_MICROPYTHON = False

try:  # MicroPython and CircuitPython; nested locks count (heap_lock returns the depth)
    from micropython import heap_lock, heap_unlock
except ImportError:  # CPython
    heap_lock = heap_unlock = None

if IS_MICROPYTHON:
    import gc as _gc

    def collect_garbage():
        """A full collection, unless the program turned automatic collection
        off (gc.disable(): e.g. where collecting is unsafe, as on WebAssembly).
        Returns the free heap after it, or None when it did not collect."""
        if _gc.isenabled():
            _gc.collect()
            return _gc.mem_free()
        return None

    def collect_often():
        """Collect after every eighth of the free heap is allocated (at least
        8 KB), until restore_collection(returned value). Returns None when the
        port has no gc.threshold or automatic collection is off."""
        threshold = getattr(_gc, "threshold", None)
        if threshold is None or not _gc.isenabled():
            return None
        previous = threshold()
        threshold(max(8192, _gc.mem_free() // 8))
        return previous

    def restore_collection(previous):
        if previous is not None:
            _gc.threshold(previous)

else:

    def collect_garbage():  # CPython frees by reference counting
        return None

    def collect_often():
        return None

    def restore_collection(previous):
        pass


try:
    import uctypes
except ImportError:  # CPython, CircuitPython
    uctypes = None

try:
    from time import ticks_diff, ticks_us
except ImportError:  # CPython; CircuitPython boards (time.monotonic_ns)
    try:
        from time import perf_counter_ns as _ns
    except ImportError:
        from time import monotonic_ns as _ns

    def ticks_us():
        return _ns() // 1000

    def ticks_diff(a, b):
        return a - b


def _has_memoryview_cast():
    try:
        memoryview(bytearray(4)).cast("f")
        return True
    except (AttributeError, TypeError):
        return False


# Typed views over a byte buffer: memoryview.cast (CPython), else uctypes
# arrays (MicroPython), else the slow struct-based fallback (tensor.py).
HAS_CAST = _has_memoryview_cast()

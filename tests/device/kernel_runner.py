"""Run kernel cases made on the host (tests/kernel_cases.py) on any target.

Device code: plain functions with asserts that carry context. Cases come as
JSON lines (one case per line, so the whole suite never sits in RAM) plus
one binary file holding every tensor's bytes. Each kernel is resolved
through the registry, called once (load time), and its step is run twice
(a second run catches state left over from the first). Cases marked
"noalloc" run their step under micropython.heap_lock() where it exists.
"""

import gc

from mpy_et.errors import MpyEtError
from mpy_et.kernels import resolve
from mpy_et.tensor import Tensor, typed_view

try:
    from micropython import heap_lock, heap_unlock
except ImportError:  # CPython, CircuitPython
    heap_lock = heap_unlock = None

_SENTINEL = 0xA5  # out tensors start as garbage, so unwritten elements show


def _collect():
    # The wasm runner turns the GC off (collecting there can free live
    # frames, see host_tools/targets/ports.py); collect only where it is on.
    if gc.isenabled():
        gc.collect()


def _tensor(spec, blob):
    dtype, sizes, off = spec
    t = Tensor(dtype, tuple(sizes))
    buf = bytearray(t.nbytes)
    t.bind(buf, 0)
    if off >= 0:
        buf[:] = memoryview(blob)[off : off + t.nbytes]
    else:
        for i in range(t.nbytes):
            buf[i] = _SENTINEL
    return t


def _value(v, blob):
    if isinstance(v, dict):
        if "T" in v:
            return _tensor(v["T"], blob)
        return float(v["F"])  # inf, -inf, nan
    if isinstance(v, list):
        if v and isinstance(v[0], dict) and "T" in v[0]:
            return [_value(x, blob) for x in v]
        return tuple(_value(x, blob) for x in v)
    return v


def _machine_epsilon():
    eps = 1.0
    while 1.0 + eps / 2 != 1.0:
        eps /= 2
    return eps


# A port cannot compute more precisely than its float type: 2**-52 on CPython
# and unix/wasm MicroPython, 2**-23 on single-precision boards, 2**-21 with
# truncation on CircuitPython's 30-bit floats. Tolerances never go below
# _REDUCTION * eps: the error bound of a sum of that many terms (Higham's
# gamma_n = n*u), longer than any reduction in the kernel cases (conv: 27).
_EPS = _machine_epsilon()
_REDUCTION = 32
_FLOOR = _REDUCTION * _EPS


def _close(got, want, atol, rtol):
    if want != want:
        return got != got
    if got == want:  # also infinities
        return True
    if atol < _FLOOR:
        atol = _FLOOR
    if rtol < _FLOOR:
        rtol = _FLOOR
    return abs(got - want) <= atol + rtol * abs(want)


def _check_out(name, k, t, want, atol, rtol):
    bad = 0
    first = None
    for i in range(t.numel):
        g = t.data[i]
        w = want[i]
        if not _close(g, w, atol, rtol):
            bad += 1
            if first is None:
                first = (i, g, w)
    assert not bad, (name, "out %d: %d of %d elements differ; first (index, got, want): %r" % (k, bad, t.numel, first))


def _run_locked(step, ctx):
    """Run step(ctx) with the heap locked; True if it tried to allocate."""
    failed = False
    heap_lock()
    try:
        step(ctx)
    except MemoryError:
        failed = True
    finally:
        heap_unlock()
    return failed


def run_case(case, blob):
    """Run one case; raise AssertionError with context on a mismatch.
    Returns 1 if the step ran under heap_lock, else 0."""
    name = case["name"]
    op = case["op"]
    kernel = resolve([op], {op: []})[op]
    args = [_value(v, blob) for v in case["args"]]
    err = case.get("error")
    if err:
        code, text = err
        try:
            kernel(*args)
        except MpyEtError as e:
            assert e.code == code, (name, "error code 0x%02x, want 0x%02x: %s" % (e.code, code, e.message))
            assert text in e.message, (name, "message %r does not mention %r" % (e.message, text))
            return 0
        raise AssertionError((name, "no error raised; want %r" % text))
    prepared = kernel(*args)
    locked = 0
    if prepared is not None:
        step, ctx = prepared
        for _ in range(2):
            if case.get("noalloc") and heap_lock is not None:
                _collect()
                assert not _run_locked(step, ctx), (name, "the step allocated under heap_lock")
                locked = 1
            else:
                step(ctx)
    atol = case["atol"]
    rtol = case["rtol"]
    for k in range(len(case["outs"])):
        where = case["outs"][k]
        t = args[where] if isinstance(where, int) else args[where[0]][where[1]]
        off = case["expect"][k]
        want = typed_view(blob, off, t.numel, t.dtype) if t.numel else ()
        _check_out(name, k, t, want, atol, rtol)
    return locked


def main(cases_path, blob_path):
    """Run every case; print one line per failure and a summary line."""
    import json

    with open(blob_path, "rb") as f:
        try:
            blob = memoryview(f)  # a board's ROMFS: the 400 KB in place, no RAM
        except TypeError:
            blob = bytearray(f.read())
    passed = failed = locked = 0
    with open(cases_path) as f:
        while True:
            line = f.readline()
            if not line:
                break
            case = json.loads(line)
            try:
                locked += run_case(case, blob)
                passed += 1
            except Exception as e:  # report every failing case, not just the first
                failed += 1
                print("FAIL %s: %s: %r" % (case["name"], type(e).__name__, e.args))
            case = None
            _collect()
    print("SUMMARY passed=%d failed=%d locked=%d" % (passed, failed, locked))

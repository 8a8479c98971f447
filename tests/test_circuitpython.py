"""CircuitPython for real (its unix port built like a board): the runtime picks
the memoryview.cast typed views there (no uctypes), and floats do not allocate."""

import pytest
from conftest import require

from host_tools.lowering.ir import tensor_bytes
from host_tools.targets import run_code

_PROBE = """
import sys
import micropython
import mpy_et
from mpy_et import port

assert sys.implementation.name == "circuitpython", sys.implementation
assert port.IS_MICROPYTHON and port.uctypes is None and port.HAS_CAST, (port.IS_MICROPYTHON, port.uctypes, port.HAS_CAST)
m = mpy_et.Program.load(DATA_DIR + "/m.pte").load_method()
for i, name in enumerate(("x.bin", "g.bin")):
    with open(DATA_DIR + "/" + name, "rb") as f:
        m.set_input(i, f.read())
assert type(m.output(0).data).__name__ == "memoryview", type(m.output(0).data)
m.execute()


def locked():
    micropython.heap_lock()
    try:
        m.execute()
        return True
    except MemoryError:
        return False
    finally:
        micropython.heap_unlock()


print("FLOAT_EXECUTE_UNDER_HEAP_LOCK", locked())
print("VIPER_MODULES", sorted(k for k in sys.modules if "viper" in k))
"""


def test_typed_views_and_float_execute_without_allocation(examples):
    """Floats are immediate objects there: even the float MLP runs under heap_lock
    (on unix MicroPython the same check fails: see test_heap_lock_check_can_fail)."""
    require("circuitpython")
    _, inputs, _, pte = examples["mlp"]
    files = {"m.pte": pte, "x.bin": tensor_bytes(inputs[0]), "g.bin": tensor_bytes(inputs[1])}
    out = run_code("circuitpython", _PROBE, files)
    assert "FLOAT_EXECUTE_UNDER_HEAP_LOCK True" in out, out
    assert "VIPER_MODULES []" in out, out


def test_missing_binary_is_reported_with_what_to_install(monkeypatch):
    from host_tools.targets import TargetError, circuitpython_binary, unavailable

    monkeypatch.setenv("MPY_ET_CIRCUITPYTHON", "/nonexistent/circuitpython")
    assert "MPY_ET_CIRCUITPYTHON" in unavailable("circuitpython")
    with pytest.raises(TargetError, match="no CircuitPython at /nonexistent/circuitpython"):
        circuitpython_binary()

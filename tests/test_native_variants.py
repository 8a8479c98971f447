"""The @micropython.native copies of the hot kernel loops
(host_tools/codegen/native_variants.py): current with the plain code, chosen where
the port has the native emitter (op_convolution's with its first bytecode
step) and never imported where it does not. Their
results are checked by tests/test_kernels.py on unix and the emulated board
(both have the emitter); wasm and CircuitPython run the plain code there."""

import pytest

from host_tools.codegen import native_variants
from host_tools.targets import run_code

_PROBE = """
import sys
from portable_kernels.util import conv_pointwise, float_loops, loops
from portable_kernels import op_convolution, op_mm
native = "portable_kernels.util.conv_native" in sys.modules
if native:
    from portable_kernels.util import conv_native, float_loops_native, loops_native
    op_convolution._native_steps()  # what building a bytecode convolution step does first
    op_mm.float_loops()  # and a bytecode product
    assert op_convolution._conv3x3 is conv_native._conv3x3
    assert op_convolution.conv_rows is conv_native.conv_rows
    assert conv_pointwise._pointwise is conv_native._pointwise
    assert float_loops.accumulate is float_loops_native.accumulate and op_mm.accumulate is float_loops_native.accumulate
    assert loops.copy_row is loops_native.copy_row
print("NATIVE", native, "loops_native" in str(sys.modules.get("portable_kernels.util.loops_native")))
"""


def test_native_copies_are_current():
    assert native_variants.stale() == []


@pytest.mark.parametrize("target, native", [("unix", True), ("wasm", False)])
def test_native_copies_chosen_only_with_the_emitter(target, native):
    out = run_code(target, _PROBE, timeout=120)
    assert ("NATIVE %s %s" % (native, native)) in out, out

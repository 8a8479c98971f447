"""Load-time reads that make no garbage (tests/device/load_garbage_runner.py):
the flatbuffer's signed integer reads and the int8 kernels' channel table
check, under heap_lock on unix and on the 32-bit Cortex-M3 board, where a
negative value once built a big int and every channel a message string."""

import os

import pytest

from host_tools.targets import run_code

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "device", "load_garbage_runner.py")


@pytest.mark.parametrize("target", ["unix", "cortex-m3"])
def test_load_reads_allocate_nothing(target):
    out = run_code(target, open(RUNNER).read(), timeout=120)
    assert "LOAD_GARBAGE failed=0" in out, out[-3000:]

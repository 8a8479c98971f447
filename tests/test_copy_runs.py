"""The viper copy of contiguous byte runs (portable_kernels/native/copy_runs_viper.py,
the runs of slice_copy, slice_scatter and constant_pad_nd on ports with a native
emitter) against the reference memoryview copies of util/runs.py, byte for byte,
under heap_lock, on unix and the Cortex-M3 board."""

import os

import pytest

from host_tools.targets import run_code

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "device", "copy_runs_runner.py")


@pytest.mark.parametrize("target", ["unix", "cortex-m3"])
def test_viper_runs_equal_the_reference(target):
    out = run_code(target, open(RUNNER).read(), timeout=120)
    assert "COPY_RUNS cases=200 failed=0" in out, out[-3000:]

"""Float32 amax / amin in Thumb-2 assembler (portable_kernels/native/
f32_extreme_thumb.py) on the Cortex-M3 and Cortex-M7 boards: bit for bit
f32_extreme_viper's results on the same walks (NaN first and mid-run, signed
zeros, infinities; pools, merged dims, every dim, size-1 dims)."""

import os

import pytest

from host_tools.targets import run_code

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "device", "f32_extreme_runner.py")


@pytest.mark.parametrize("target", ["cortex-m3", "cortex-m7"])
def test_same_bits_as_viper(target):
    out = run_code(target, open(RUNNER).read(), timeout=120)
    assert "CHECKED 42" in out, out[-2000:]

"""cortex_m:: fast paths (native/cm_conv_nhwc_viper.py, native/cm_dots_s8_thumb.py,
native/cm_avg_pool_viper.py) against the pure-Python reference steps, which
tests/test_cortex_m_ops.py holds bit for bit to ExecuTorch's: on unix
MicroPython (viper, 64-bit words) and the emulated Cortex-M3 / Cortex-M7
(viper + asm_thumb, 32-bit words), each layer's fast step must equal the
reference in the same process, run with the heap locked, and print the
checksum CPython's reference prints. One process per target
(tests/device/cortex_m_fast_runner.py)."""

import os

import pytest

from host_tools.targets import run_code

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "device", "cortex_m_fast_runner.py")
_CACHE = {}


def _layers(target):
    if target not in _CACHE:
        out = run_code(target, open(RUNNER).read(), timeout=600)
        rows = [line[6:].split("|") for line in out.splitlines() if line.startswith("LAYER ")]
        assert len(rows) == 11, out[-2000:]
        _CACHE[target] = {r[0]: r[1:] for r in rows}
    return _CACHE[target]


@pytest.mark.parametrize("target", ["unix", "cortex-m3-large", "cortex-m7"])
def test_fast_paths_equal_the_reference_with_the_heap_locked(target):
    ref = _layers("cpython")
    got = _layers(target)
    for name, (step, total, same, locked) in got.items():
        assert same == "same" and locked == "locked", (target, name, step, same, locked)
        assert total == ref[name][1], (target, name, step, total, ref[name][1])
    arm = target.startswith("cortex")
    # Arm: Thumb dot products and requantization (SMULL) where the layout allows
    assert got["conv 1x1 16 -> 12"][0] == ("_viper+dots+requant" if arm else "_viper+viper"), got
    assert got["conv 3x3 pad 1 8 -> 6"][0] == ("_viper+dots+requant" if arm else "_viper+viper"), got
    assert got["depthwise 3x3 pad 1 c8"][0] == ("_viper+macs+requant" if arm else "_viper+viper"), got
    assert got["depthwise 3x3 c1 x8"][0] == ("_viper+macs+requant" if arm else "_viper+viper"), got
    assert got["depthwise 3x3 c3 x2"][0] == ("_viper+viper+requant" if arm else "_viper+viper"), got
    assert got["linear 40 -> 10 bias"][0] == "_viper_or_reference+" + ("dots+requant" if arm else "viper"), got
    assert got["avg 2x2 c8 (ties)"][0] == "_avg_viper", got
    assert ref["conv 1x1 16 -> 12"][0] == "_conv" and ref["avg 2x2 c8 (ties)"][0] == "_avg", ref

"""Zero allocation on the quantized zoo (issue 9, requirement 4).

Each fully int8 zoo model below is exported with PT2E calibration and run on
unix MicroPython (viper fast paths), WebAssembly (pure-Python reference,
32-bit small ints) and the emulated Cortex-M3 (viper + asm_thumb, armv7m
.mpy): execute() locks the heap itself (every step is marked
allocation-free), reports execute_heap_bytes == 0, survives the runner's own
heap_lock around execute(), and prints exactly the host integer reference.

The set covers every int8 operator kind the zoo fuses (linear, conv1d,
conv2d regular/depthwise/pointwise, max/avg pool, add, softmax, table
activations, upsample_nearest2d). mobilenet_v1_025, resnet8 and
mobilenet_v2_block use the same kernels at larger sizes; they are left out
for time (about 40 s of export and wasm) and measured by
benchmarks/bench_int8_conv.py and the zoo heap script in the issue notes.
"""

import pytest
import torch

from host_tools import export, run
from host_tools.targets import unavailable
from host_tools.zoo import build

# model -> int8 operators it must have fused (names as in the export report)
ZOO_INT8 = {
    "mlp": {"linear"},
    "fc_autoencoder": {"linear"},
    "imu_cnn1d": {"conv1d", "max_pool2d", "avg_pool2d", "linear"},
    "lenet5": {"conv2d", "max_pool2d", "linear"},
    "ds_cnn": {"conv2d", "avg_pool2d", "linear", "softmax"},
    "conv_autoencoder": {"conv2d", "upsample_nearest2d", "lut"},
}

_EXPORTED = {}


def _exported(name):
    if name not in _EXPORTED:
        model, inputs = build(name)
        torch.manual_seed(1)
        calibration = [tuple(torch.randn_like(t) for t in inputs) for _ in range(8)]
        report = {}
        pte = export(model, inputs, quantize="int8", calibration=calibration, report=report)
        _EXPORTED[name] = (pte, inputs, report)
    return _EXPORTED[name]


@pytest.mark.parametrize("name", sorted(ZOO_INT8))
def test_zoo_model_exports_fully_int8(name):
    _, _, report = _exported(name)
    assert report["float_ops"] == [], (name, report["float_ops"])
    fused = {op.split(" ")[0] for op in report["fused"]}
    assert ZOO_INT8[name] <= fused, (name, report["fused"])


@pytest.mark.parametrize("target", ["unix", "wasm", "cortex-m3-large"])
def test_zoo_execute_allocates_nothing_and_is_bit_identical(target):
    why = unavailable(target)
    if why:
        pytest.skip(why)
    for name in sorted(ZOO_INT8):
        pte, inputs, report = _exported(name)
        want = report["reference"](*inputs)
        res = run(pte, inputs, target, repeat=1, heap_lock=True)
        s = res.stats
        assert s["heap_lock_ok"] is True, (name, target, s)
        assert s["execute_heap_locked"] is True, (name, target, s)
        assert s["execute_heap_bytes"] == 0, (name, target, s)
        got = res.outputs[0]
        assert got.dtype == want.dtype and torch.equal(got, want), (name, target, (got - want).abs().max().item())

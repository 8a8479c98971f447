"""int8 post-training quantization end to end (issue 9).

Quantized models export through PT2E + our Quantizer, fuse into
mpy_et_quant operators, and run on CPython, unix MicroPython (viper), wasm
(pure-Python reference, 32-bit) and the emulated Cortex-M3 board (viper,
armv7m .mpy): bit-identical to the host integer reference (the fused graph
run by host_tools/quantize/ref.py), within one quantum of PyTorch's own
converted graph, and execute() under micropython.heap_lock().
"""

import pytest
import torch
from torch import nn

from host_tools import export, run
from host_tools.quantize import ref as quant_ref
from host_tools.quantize.pt2e import quantize_pt2e_int8
from host_tools.targets import run_code, unavailable


class SmallCNN(nn.Module):
    """conv 3x3 pad 1 + relu, max pool, depthwise 3x3 stride 2 + relu6,
    pointwise 1x1, dilated conv, residual add + relu, global mean, linear."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.dw = nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8)
        self.pw = nn.Conv2d(8, 8, 1)
        self.c3 = nn.Conv2d(8, 8, 3, padding=2, dilation=2)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        x = torch.max_pool2d(torch.relu(self.c1(x)), 2)
        y = self.pw(torch.nn.functional.relu6(self.dw(x)))
        z = torch.relu(y + self.c3(y))
        return self.fc(torch.mean(z, dim=(2, 3)))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.f1, self.f2, self.f3 = nn.Linear(20, 32), nn.Linear(32, 16), nn.Linear(16, 4)

    def forward(self, x):
        return self.f3(torch.relu(self.f2(torch.relu(self.f1(x)))))


class Classifier(nn.Module):
    """MLP with a softmax head (the MLPerf Tiny classifiers end so)."""

    def __init__(self):
        super().__init__()
        self.mlp = MLP()

    def forward(self, x):
        return torch.softmax(self.mlp(x), dim=-1)


class Sequence(nn.Module):
    """An IMU-style 1-D path: conv1d, max_pool1d, a table activation (gelu),
    mean over time, linear, sigmoid."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        x = torch.nn.functional.gelu(torch.max_pool1d(torch.relu(self.conv(x)), 2))
        return torch.sigmoid(self.fc(x.mean(dim=2)))


def _model(name):
    torch.manual_seed(0)
    model, shape = {
        "cnn": (SmallCNN(), (1, 3, 16, 16)),
        "mlp": (MLP(), (3, 20)),
        "cls": (Classifier(), (6, 20)),
        "seq": (Sequence(), (2, 3, 24)),
    }[name]
    calibration = [(torch.randn(*shape),) for _ in range(16)]
    return model.eval(), (torch.randn(*shape),), calibration


_EXPORTED = {}


def _exported(name):
    if name not in _EXPORTED:
        model, inputs, calibration = _model(name)
        report = {}
        pte = export(model, inputs, quantize="int8", calibration=calibration, report=report)
        _EXPORTED[name] = (pte, inputs, report, model, calibration)
    return _EXPORTED[name]


@pytest.mark.parametrize("name", ["cnn", "mlp", "cls", "seq"])
def test_export_fuses_everything_and_matches_pytorch_within_one_quantum(name):
    pte, inputs, report, model, calibration = _exported(name)
    assert report["float_ops"] == [], report["float_ops"]
    want_ops = {
        "cnn": {"conv2d", "max_pool2d", "add", "avg_pool2d", "linear"},
        "mlp": {"linear"},
        "cls": {"linear", "softmax"},
        "seq": {"conv1d", "max_pool2d (1-D)", "lut (gelu)", "avg_pool2d", "linear", "lut (sigmoid)"},
    }[name]
    assert want_ops <= set(report["fused"]), report["fused"]
    ours = report["reference"](*inputs)
    pytorch = quantize_pt2e_int8(model, inputs, calibration)(*inputs)  # PyTorch's converted graph, float between q/dq
    out_scale = float(
        report["reference"].graph.find_nodes(op="call_function", target=torch.ops.mpy_et_quant.dequantize_per_tensor.default)[0].args[2]
    )
    assert (ours - pytorch).abs().max().item() <= out_scale * 1.001, (ours, pytorch, out_scale)


@pytest.mark.parametrize("target", ["cpython", "unix", "wasm", "cortex-m3"])
def test_bit_identical_and_heap_locked_on_targets(target):
    why = unavailable(target)
    if why:
        pytest.skip(why)
    for name in ("cnn", "mlp", "cls", "seq"):
        pte, inputs, report, _, _ = _exported(name)
        want = report["reference"](*inputs)
        res = run(pte, inputs, target, repeat=1, heap_lock=target != "cpython")
        got = res.outputs[0]
        assert torch.equal(got, want), (name, target, (got - want).abs().max().item())
        if target != "cpython":
            assert res.stats["heap_lock_ok"] is True, (name, target, res.stats)
            # every step is marked allocation-free: execute() locks the heap itself
            assert res.stats["execute_heap_locked"] is True, (name, target, res.stats)
            assert res.stats["execute_heap_bytes"] == 0, (name, target, res.stats)


def test_a_marked_step_that_allocates_is_named_and_the_heap_unlocked():
    """A kernel wrongly marked allocation-free fails with the instruction and
    operator in the message, and execute() leaves the heap unlocked."""
    why = unavailable("unix")
    if why:
        pytest.skip(why)
    pte, _, _, _, _ = _exported("mlp")
    code = """
from mpy_et import noalloc
from mpy_et.errors import MpyEtError
from mpy_et.program import Program
m = Program.load(open(DATA_DIR + "/m.pte", "rb").read()).load_method("forward")
print("locked", m.lock_heap)
def bad(ctx):
    return [ctx]  # a list: allocates
noalloc.mark(bad)
m._steps[1] = bad
try:
    m.execute()
except MpyEtError as e:
    print("error", e)
print("heap open", len([1, 2, 3]))
"""
    out = run_code("unix", code, files={"m.pte": pte}, timeout=60)
    assert "locked True" in out, out
    assert "error" in out and "allocated while the heap was locked" in out and "(mpy_et_quant::" in out, out
    assert "heap open 3" in out, out


def test_float_programs_keep_the_heap_unlocked():
    why = unavailable("unix")
    if why:
        pytest.skip(why)
    model, inputs, _ = _model("mlp")
    res = run(export(model, inputs), inputs, "unix", repeat=1)
    assert res.stats["execute_heap_locked"] is False and res.stats["execute_heap_bytes"] > 0, res.stats


def test_user_converted_graph_exports_the_same():
    model, inputs, calibration = _model("mlp")
    converted = quantize_pt2e_int8(model, inputs, calibration)
    pte, _, report, _, _ = _exported("mlp")
    assert export(converted, inputs, quantize="int8") == pte


def test_float_islands_are_reported_and_exact():
    class Gate(nn.Module):
        def __init__(self):
            super().__init__()
            self.f1, self.f2 = nn.Linear(6, 8), nn.Linear(8, 3)

        def forward(self, x):
            return self.f2(torch.erf(self.f1(x)))  # no table for erf: stays float

    torch.manual_seed(1)
    x = (torch.randn(2, 6),)
    report = {}
    pte = export(Gate().eval(), x, quantize="int8", calibration=[(torch.randn(2, 6),) for _ in range(8)], report=report)
    assert [op for op, _ in report["float_ops"]] == ["aten::erf"], report["float_ops"]
    assert "forward" in report["float_ops"][0][1]
    want = report["reference"](*x)
    for target in ("cpython", "unix"):
        got = run(pte, x, target, repeat=1).outputs[0]
        assert (got - want).abs().max().item() < 1e-6, (target, got, want)


def test_masked_attention_stays_float_and_is_reported():
    """Only plain attention is unrolled into int8 bmm / softmax; a causal one
    keeps PyTorch's float decomposition, listed in the report, and still runs."""

    class Causal(nn.Module):
        def __init__(self):
            super().__init__()
            self.q = nn.Linear(16, 16)

        def forward(self, x):
            q = self.q(x).reshape(1, 2, 8, 8)
            return nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)

    torch.manual_seed(2)
    x = (torch.randn(1, 8, 16),)
    report = {}
    pte = export(Causal().eval(), x, quantize="int8", calibration=[(torch.randn(1, 8, 16),) for _ in range(4)], report=report)
    floats = {op for op, _ in report["float_ops"]}
    assert {"aten::bmm", "aten::_softmax", "aten::where"} <= floats, floats
    got = run(pte, x, "unix", repeat=1).outputs[0]
    assert (got - report["reference"](*x)).abs().max().item() < 1e-5


def test_requantization_is_32_bit_safe_and_exact():
    torch.manual_seed(2)
    reals = 2.0 ** (torch.rand(2000, dtype=torch.float64) * 40 - 32)
    rq = quant_ref.requant_table(reals).to(torch.int64)
    acc = torch.randint(-(2**29), 2**29, (2000,))
    acc[::3] = torch.randint(-5000, 5000, (667,))
    got = quant_ref.requantize(acc, rq[:, 0], rq[:, 1], rq[:, 2], 0, -128, 127)  # asserts both evaluations agree
    exact = torch.div(acc * rq[:, 0] + (1 << (rq[:, 1] - 1)), 1 << rq[:, 1], rounding_mode="floor").clamp(-128, 127)
    assert torch.equal(got, exact)
    approx = torch.round(acc.double() * reals).clamp(-128, 127)
    assert (got.double() - approx).abs().max().item() <= 1


def test_accumulators_beyond_32_bits_are_refused_at_export():
    w = torch.tensor([127, -127] * 20000, dtype=torch.int8).repeat(2, 1)  # sum 0: only the dot products are too long
    with pytest.raises(quant_ref.QuantRangeError, match="overflow a 32-bit viper word"):
        quant_ref.check_viper_conv(w, torch.zeros(2, dtype=torch.int32), 0, "linear")
    with pytest.raises(quant_ref.QuantRangeError, match="accumulator"):
        quant_ref.requantize(torch.tensor([2**30]), 16384, 30, 2**29, 0, -128, 127)


def test_quantize_must_be_int8():
    model, inputs, _ = _model("mlp")
    with pytest.raises(ValueError, match="int8"):
        export(model, inputs, quantize="int4")


def test_int8_export_needs_no_numpy():
    """The `export` extra has no numpy (the README's first command): quantizing
    must not call Tensor.numpy()."""
    import subprocess
    import sys

    code = (
        "import importlib.machinery, sys\n"
        "sys.modules['numpy'] = None  # torch: 'Numpy is not available'\n"
        "find = importlib.machinery.PathFinder.find_spec\n"
        "importlib.machinery.PathFinder.find_spec = classmethod(lambda c, n, *a: None if n == 'numpy' else find(n, *a))\n"
        "import torch\n"
        "from host_tools import export\n"
        "from host_tools.zoo import build\n"
        "model, inputs = build('mlp')\n"
        "pte = export(model, inputs, quantize='int8', calibration=[inputs])\n"
        "print('OK', len(pte))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "OK" in proc.stdout, proc.stderr[-2000:]

"""Numeric debugger (host_tools/devtools/debug.py, `mpy-et debug`): captured
intermediates on every target against PyTorch's graph, the first layer
whose error jumps."""

import pytest
import torch
from conftest import TARGETS

from host_tools import export, run
from host_tools.cli import main
from host_tools.devtools.debug import compare, debug, first_drop, node_values
from host_tools.zoo import build


def _calibration(inputs, n=8):
    g = torch.Generator().manual_seed(0)
    return [tuple(torch.randn(t.shape, generator=g) for t in inputs) for _ in range(n)]


def test_compare_marks_the_first_jump():
    ref = {"a": torch.ones(4), "b": torch.full((4,), 2.0), "c": torch.full((4,), 3.0), "d": torch.full((4,), 4.0)}
    got = [ref["a"] + 1e-7, ref["b"] + 2e-7, ref["c"] + 0.03, ref["d"] + 0.04]
    steps = [{"instruction": i, "operator": "aten::add.out", "outputs": [g]} for i, g in enumerate(got)]
    nodes = [["a"], ["b"], ["c"], ["d"]]
    rows, jump = compare(steps, nodes, ref, "fp32")
    assert jump == 2 and rows[2]["node"] == "c" and rows[2]["max_abs"] == pytest.approx(0.03, rel=1e-4), rows
    # errors that grow slowly, or stay at rounding level, are no jump
    slow = [ref["a"] + 2e-6, ref["b"] + 1e-5, ref["c"] + 6e-5, ref["d"] + 1.6e-4]  # relative 2e-6, 5e-6, 2e-5, 4e-5
    assert compare([dict(s, outputs=[g]) for s, g in zip(steps, slow)], nodes, ref, "fp32")[1] is None
    q = {"a": torch.tensor([1, 2], dtype=torch.int8), "b": torch.tensor([3, 4], dtype=torch.int8)}
    steps = [
        {"instruction": 0, "operator": "q", "outputs": [q["a"].clone()]},
        {"instruction": 1, "operator": "q", "outputs": [torch.tensor([3, 6], dtype=torch.int8)]},
    ]
    rows, jump = compare(steps, [["a"], ["b"]], q, "int8")
    assert jump == 1 and [r["mismatches"] for r in rows] == [0, 1] and rows[1]["max_abs"] == 2
    assert first_drop([40.0, None, 38.5, 41.0, 30.9, 20.0]) == 4  # 10 dB under the layer before (41)
    assert first_drop([40.0, 35.0, 31.0, 29.0]) is None and first_drop([None, None]) is None  # a drift is no jump


@pytest.mark.parametrize("target", TARGETS)
def test_fp32_layers_match_pytorch_on_every_target(target):
    model, inputs = build("mlp")
    report = debug(model, inputs, target)
    assert [r["node"] for r in report.rows] == ["addmm", "relu", "addmm_1", "relu_1", "addmm_2"], report.rows
    assert report.first_jump is None, report.table()
    limit = 5e-6 if target == "circuitpython" else 1e-6  # 30-bit floats there
    assert all(r["rel"] < limit and r["sqnr_db"] > 100 for r in report.rows), report.table()


@pytest.mark.parametrize("target", ["unix", "cortex-m3"])
def test_int8_layers_equal_the_integer_reference(target):
    model, inputs = build("lenet5")
    report = debug(model, inputs, target, quantize="int8", calibration=_calibration(inputs))
    assert report.rows and all(r["mismatches"] == 0 for r in report.rows), report.table()
    assert report.first_jump is None and report.sqnr_drop is None and report.output_sqnr_db > 20, report.table()
    # each int8 layer, dequantized, against the fp32 model's activation (quantization error, ~40 dB here)
    int8_rows = [r for r in report.rows if r["operator"] != "mpy_et_quant::dequantize_per_tensor.out"]
    assert all(r["sqnr_db"] is not None and 25 < r["sqnr_db"] < 80 for r in int8_rows), report.table()


def test_a_wrong_layer_on_the_device_is_found():
    """Real intermediates from unix MicroPython, one layer's output corrupted
    as a faulty kernel would: the debugger points at that layer."""
    model, inputs = build("mlp")
    rep = {}
    pte = export(model, tuple(inputs), report=rep)
    steps = run(pte, inputs, "unix", repeat=1, profile=1, capture=True).intermediates
    values = node_values(rep["graph"], tuple(inputs))
    steps[2]["outputs"][0][0, 3] += 0.05
    rows, jump = compare(steps, rep["instruction_nodes"], values, "fp32")
    assert jump == 2 and rows[2]["node"] == "addmm_1" and rows[2]["max_abs"] == pytest.approx(0.05, rel=1e-3), rows


def test_cli_debug(capsys):
    assert main(["debug", "--zoo", "mlp", "--target", "cpython"]) == 0
    out = capsys.readouterr().out
    assert "addmm_1" in out and "no layer's error jumps" in out, out
    assert main(["debug", "--target", "cpython"]) == 1
    assert "a model file or --zoo NAME" in capsys.readouterr().err
    assert main(["debug", "--zoo", "mlp", "--calibration", "x.pt"]) == 1
    assert "--calibration needs --quantize int8" in capsys.readouterr().err

"""int8 program inputs and outputs (export(..., quantized_io=True),
host_tools/quantize/io.py): the leading quantize and trailing dequantize are
gone, the scales and zero points travel in the program as named data, and
the arena holds no float copy of the input."""

import pytest
import torch

import mpy_et
from host_tools import cli, export, inspect, run
from host_tools.quantize import io
from host_tools.zoo import build


def _calibration(inputs, n=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [tuple(torch.randn(t.shape, generator=g) for t in inputs) for _ in range(n)]


@pytest.fixture(scope="module")
def lenet():
    model, inputs = build("lenet5")
    report = {}
    pte = export(model, tuple(inputs), quantize="int8", calibration=_calibration(inputs), report=report, quantized_io=True)
    return pte, tuple(inputs), report


def test_inputs_and_outputs_are_int8_with_their_parameters_in_the_program(lenet):
    pte, inputs, report = lenet
    program = mpy_et.Program.load(pte)
    method = program.load_method()
    assert method.input(0).dtype == 1 and method.output(0).dtype == 1  # Char: int8
    got = io.read(program)
    assert got == report["io_quantization"] and got["inputs"][0] and got["outputs"][0], got
    assert program.named_data("no/such/key") is None
    lines = inspect(pte)
    assert lines["io_quantization"] == got
    with pytest.raises(ValueError, match="needs quantize"):
        export(*build("mlp"), quantized_io=True)


@pytest.mark.parametrize("target", ["cpython", "unix", "cortex-m3"])
def test_run_quantizes_float_inputs_and_matches_the_integer_reference(lenet, target):
    pte, inputs, report = lenet
    scale, zp = report["io_quantization"]["inputs"][0]
    want = report["reference"](io.quantize(inputs[0], scale, zp))
    want = want[0] if isinstance(want, (tuple, list)) else want
    res = run(pte, inputs, target, repeat=1)
    assert res.outputs[0].dtype == torch.int8 and torch.equal(res.outputs[0], want), (target, res.outputs[0], want)
    # still the model: dequantized, near float PyTorch
    oscale, ozp = report["io_quantization"]["outputs"][0]
    real = oscale * (res.outputs[0].to(torch.float32) - ozp)
    ref = build("lenet5")[0](*inputs)
    assert (real - ref).abs().max().item() < 0.1 * ref.abs().max().item() + 0.05, (real, ref)


def test_mobilenet_arena_holds_no_float_input():
    """Issue 18: mobilenet_v1_025's int8 arena was its float input plus that
    input's int8 copy (138,240 B); with int8 input it is the lower bound of
    its int8 tensors."""
    model, inputs = build("mobilenet_v1_025")
    info = inspect(export(model, tuple(inputs), quantize="int8", calibration=_calibration(inputs, n=2), quantized_io=True))
    assert info["planned_bytes"] <= 1.05 * info["lower_bound_bytes"], info["planned_bytes"]
    assert info["planned_bytes"] < 60_000, info["planned_bytes"]


def test_cli_exports_reports_and_runs_a_quantized_io_program(tmp_path, capsys):
    pte = str(tmp_path / "mlp_io.pte")
    assert cli.main(["export", "--zoo", "mlp", "--quantize", "int8", "--quantized-io", "-o", pte]) == 0
    out = capsys.readouterr().out
    assert "input 0: int8, scale" in out and "output 0: int8, scale" in out, out
    assert cli.main(["run", pte, "--target", "unix", "--atol", "0", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "MATCH (tolerance 0)" in out, out
    assert cli.main(["export", "--zoo", "mlp", "--quantized-io", "-o", pte]) == 1
    assert "--quantized-io needs --quantize int8" in capsys.readouterr().err

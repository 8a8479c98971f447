"""export(patch=...): the first stages run band by band (host_tools/planning/patch.py).

A small MobileNet-like model (stride-2 stem, expansion, depthwise with
border padding, projection, residual add), patched into bands, gives the
unpatched program's outputs bit for bit on every target, int8 and fp32,
with a smaller planned arena; the fp32 program still runs in ExecuTorch's
runtime.
"""

import pytest
import torch
from torch import nn

from host_tools import export, run
from host_tools.analysis.inspect_pte import inspect, report
from host_tools.planning.patch import PatchError

TARGETS = ("cpython", "unix", "wasm", "circuitpython", "cortex-m3")
OPTIONS = {"tiles": 3, "max_extra_macs": 1.0, "instruction_bytes": 0}  # the smallest arena


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(3)
        self.stem = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.expand = nn.Conv2d(8, 24, 1)
        self.dw = nn.Conv2d(24, 24, 3, padding=1, groups=24)
        self.project = nn.Conv2d(24, 8, 1)
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        y = torch.relu(self.stem(x))
        y = y + self.project(nn.functional.relu6(self.dw(nn.functional.relu6(self.expand(y)))))
        return self.head(y.mean(dim=(2, 3)))


INPUTS = (torch.randn(1, 3, 24, 24, generator=torch.Generator().manual_seed(5)),)


@pytest.fixture(scope="module")
def programs():
    model = Tiny().eval()
    out = {}
    for precision in ("fp32", "int8"):
        kw = dict(quantize="int8", calibration=[INPUTS], quantized_io=True) if precision == "int8" else {}
        report = {}
        out[precision] = (export(model, INPUTS, **kw), export(model, INPUTS, patch=OPTIONS, report=report, **kw), report["patch"])
    return out


@pytest.mark.parametrize("precision", ["fp32", "int8"])
def test_patch_lowers_the_planned_peak(programs, precision):
    plain, patched, info = programs[precision]
    assert info["patched"] and len(info["bands"]) == 3, info
    assert [op.split("::")[1] for op, _ in info["stage"]][0].startswith("conv"), info["stage"]
    assert info["peak_after"] < info["peak_before"], info
    assert info["macs_after"] > info["macs_before"], info  # halos are computed twice
    before, after = inspect(plain), inspect(patched)
    assert after["planned_bytes"] == info["peak_after"] == after["lower_bound_bytes"], (after, info)
    assert before["planned_bytes"] == info["peak_before"], (before, info)
    assert "patched: 3 bands written in place" in report(after), report(after)
    ops = set(after["operators"])
    assert {"aten::slice_copy.Tensor_out", "aten::slice_scatter.out", "aten::constant_pad_nd.out"} <= ops, ops


@pytest.mark.parametrize("precision", ["fp32", "int8"])
@pytest.mark.parametrize("target", TARGETS)
def test_patched_outputs_are_bit_identical(programs, precision, target):
    plain, patched, _ = programs[precision]
    want = run(plain, INPUTS, target, repeat=1).outputs
    got = run(patched, INPUTS, target, repeat=1).outputs
    assert all(torch.equal(a, b) for a, b in zip(got, want)), (target, precision, got, want)


def test_patched_fp32_runs_in_executorch(programs):
    from executorch.runtime import Runtime

    plain, patched, _ = programs["fp32"]
    want = Runtime.get().load_program(plain).load_method("forward").execute(list(INPUTS))[0]
    got = Runtime.get().load_program(patched).load_method("forward").execute(list(INPUTS))[0]
    assert torch.equal(got, want), (got, want)


def test_mobilenet_v2_block_int8_below_half_its_unpatched_bound():
    from host_tools.zoo import build

    model, inputs = build("mobilenet_v2_block")
    report = {}
    pte = export(model, inputs, quantize="int8", calibration=[inputs], patch=True, report=report)
    assert report["patch"]["peak_before"] == 9216 + 55296 + 55296, report["patch"]
    assert inspect(pte)["planned_bytes"] <= 0.5 * report["patch"]["peak_before"], report["patch"]


def test_no_stage_leaves_the_program_as_it_is():
    model = nn.Sequential(nn.Flatten(), nn.Linear(12, 4)).eval()
    x = (torch.randn(1, 3, 2, 2),)
    report = {}
    assert export(model, x, patch=True, report=report) == export(model, x)
    assert report["patch"]["patched"] is False


@pytest.mark.parametrize(
    "options, message",
    [
        ({"bands": 2}, "unknown option"),
        ({"tiles": 99}, "no stage fits"),
        ({"tiles": 99, "stop": 0}, "99 bands for a stage output of 12 rows"),
        ({"stop": 0, "start": 1}, "no stage fits"),
    ],
)
def test_bad_patch_options_are_named(options, message):
    with pytest.raises(PatchError, match=message):
        export(Tiny().eval(), INPUTS, patch=options)


def test_cli_export_patch(tmp_path, capsys):
    from host_tools import cli

    pte = str(tmp_path / "block.pte")
    assert cli.main(["export", "--zoo", "mobilenet_v2_block", "--patch", "-o", pte]) == 0
    assert "patch: 8 bands; peak 479232 -> 156672 bytes" in capsys.readouterr().out
    assert cli.main(["inspect", pte]) == 0
    assert "patched: 8 bands written in place" in capsys.readouterr().out

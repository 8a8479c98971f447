"""`mpy-et inspect --target`: the runtime's own RAM on a board, predicted on the
host (host_tools/analysis/board_ram.py), against the board's measurement."""

import os

import pytest
import torch

from host_tools import export, inspect, run
from host_tools.analysis import board_ram
from host_tools.cli import main
from host_tools.deploy.selective import device_modules
from portable_kernels.registry import KERNELS


def test_mpy_qstrs_reads_the_names_a_module_interns(tmp_path):
    names = board_ram.compiled_qstrs(["portable_kernels.util.scratch"], "armv7m")["portable_kernels.util.scratch"]
    assert "rows" in names and "derived" in names and "_ROWS" in names
    with pytest.raises(board_ram.BoardRamError, match="not a .mpy"):
        board_ram.mpy_qstrs(b"# a .py file")


@pytest.mark.parametrize("target", ["cortex-m3", "cortex-m7"])
def test_the_table_holds_every_device_module(target):
    """A module added since the table was measured would be left out of the
    prediction: remeasure with `python -m host_tools.analysis.board_ram TARGET`."""
    table = board_ram.read_table(target)
    wanted = device_modules(KERNELS)
    missing = [
        pkg + "." + m
        for pkg, mods in wanted.items()
        for m in mods
        if not m.endswith("__init__")
        and pkg + "." + m not in table["modules"]
        and pkg + "." + m not in table["baseline_modules"] + table.get("unavailable", [])
    ]
    assert not missing, "remeasure: python -m host_tools.analysis.board_ram %s" % target
    assert table["pools"] and table["baseline"]["heap_free"] > 100_000


def _models():
    torch.manual_seed(0)
    cnn = torch.nn.Sequential(
        torch.nn.Conv2d(1, 8, 3, padding=1),
        torch.nn.ReLU(),
        torch.nn.Conv2d(8, 8, 3, groups=8, padding=1),
        torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(),
        torch.nn.Linear(8, 4),
    ).eval()
    x = (torch.randn(1, 1, 12, 12),)
    cal = [(torch.randn(1, 1, 12, 12),) for _ in range(4)]
    return {
        "cnn_fp32": (export(cnn, x), x),
        "cnn_int8": (export(cnn, x, quantize="int8", calibration=cal), x),
        "cnn_int8_qio": (export(cnn, x, quantize="int8", calibration=cal, quantized_io=True), x),
    }


@pytest.mark.parametrize("target", ["cortex-m3"])
def test_prediction_within_10_percent_of_the_board(target):
    """Issue 18 goal 2: inspect --target predicts the runtime RAM the board
    measures (program + first load_method, kernel imports included, minus the
    arena) within 10%."""
    for name, (pte, x) in _models().items():
        predicted = inspect(pte, target=target)["board"]["runtime_ram_bytes"]
        s = run(pte, x, target, repeat=1).stats
        measured = s["program_heap_bytes"] + s["first_load_method_heap_bytes"] - s["arena_bytes"]
        assert abs(predicted - measured) <= 0.10 * measured, (name, predicted, measured)


def test_cli_inspect_target(tmp_path, capsys):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 8), torch.nn.ReLU()).eval()
    path = os.path.join(tmp_path, "m.pte")
    export(model, (torch.randn(1, 16),), path=path)
    assert main(["inspect", path, "--target", "cortex-m3"]) == 0
    out = capsys.readouterr().out
    assert "on cortex-m3 (predicted" in out and "runtime RAM beyond the arena" in out and "fits" in out

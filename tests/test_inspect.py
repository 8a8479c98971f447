"""`mpy-et inspect` / host_tools.inspect: plan size, lower bound, predicted heap."""

import json

import pytest
import torch

import mpy_et
from host_tools import export, inspect, run
from host_tools.cli import main
from host_tools.examples.chain import Chain


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_inspect_reports_the_plan(examples, name):
    _, _, _, pte = examples[name]
    info = inspect(pte)
    m = mpy_et.Program.load(pte).load_method()
    assert info["planned_bytes"] == m.planned_bytes == sum(info["memory_ids"].values())
    assert info["instructions"] == len(m.step_ops())
    assert info["operators"] == sorted({op for _, op in m.step_ops()})
    assert info["constant_bytes"] == mpy_et.Program.load(pte).constant_size > 0
    assert 0 < info["lower_bound_bytes"] <= info["planned_bytes"] <= 1.05 * info["lower_bound_bytes"]
    assert max(info["steps"]) == info["lower_bound_bytes"]


def test_inspect_reads_executorch_programs(examples, et_programs):
    ours, theirs = inspect(examples["cnn"][3]), inspect(et_programs["cnn"])
    assert theirs["lower_bound_bytes"] <= theirs["planned_bytes"]
    assert ours["planned_bytes"] < theirs["planned_bytes"]


def test_predicted_heap_matches_the_unix_port(examples):
    programs = [(examples[n][3], examples[n][1]) for n in ("mlp", "cnn")]
    x = (torch.randn(2, 5),)
    programs.append((export(Chain(120), x), x))
    for pte, inputs in programs:
        predicted = inspect(pte)["predicted_load_heap_bytes"]
        measured = run(pte, inputs, "unix", repeat=1, reload=True).stats["load_method_heap_bytes"]
        assert abs(predicted - measured) <= 0.10 * measured, (predicted, measured)


def test_cli_inspect(examples, tmp_path, capsys):
    path = tmp_path / "cnn.pte"
    path.write_bytes(examples["cnn"][3])
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "lower bound" in out and "predicted heap" in out
    assert main(["inspect", str(path), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["planned_bytes"] > 0 and "1" in info["memory_ids"]
    png = tmp_path / "plan.png"
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert main(["inspect", str(path), "--plot", str(png)]) == 1
        assert "needs matplotlib" in capsys.readouterr().err
    else:
        assert main(["inspect", str(path), "--plot", str(png)]) == 0
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["inspect", str(tmp_path / "missing.pte")]) == 1

"""Every zoo model: our .pte equals PyTorch on CPython, unix MicroPython and (the
smaller ones) WebAssembly; ExecuTorch's own .pte of it runs on mpy_et; ours runs
in ExecuTorch's runtime; its memory plan is verified, close to the lower bound
and predicted heap matches the unix port."""

import pytest
import torch

from host_tools import export, inspect, run
from host_tools.macs import count_macs
from host_tools.zoo import MODELS, build

ATOL = 1e-4
WASM_MAX_MACS = 500_000  # larger models take too long on WebAssembly for the suite
NAMES = sorted(MODELS)


@pytest.fixture(scope="module")
def zoo():
    """name -> (model, inputs, PyTorch outputs, our .pte)."""
    out = {}
    for name in NAMES:
        model, inputs = build(name)
        with torch.no_grad():
            want = model(*inputs)
        out[name] = (model, inputs, want, export(model, inputs))
    return out


def _close(got, want):
    torch.testing.assert_close(got, want, atol=ATOL, rtol=ATOL)


@pytest.mark.parametrize("name", NAMES)
def test_zoo_model_on_cpython_and_unix(zoo, name):
    model, inputs, want, pte = zoo[name]
    targets = ["cpython", "unix"] + (["wasm"] if count_macs(model, inputs) <= WASM_MAX_MACS else [])
    for target in targets:
        _close(run(pte, inputs, target, repeat=1, heap_bytes=64 * 1024 * 1024 if target == "unix" else None).outputs[0], want)


@pytest.mark.parametrize("name", NAMES)
def test_zoo_model_both_ways_with_executorch(zoo, name):
    from executorch.exir import to_edge
    from executorch.runtime import Runtime

    model, inputs, want, pte = zoo[name]
    theirs = to_edge(torch.export.export(model, inputs)).to_executorch().buffer
    _close(run(theirs, inputs, "cpython", repeat=1).outputs[0], want)
    got = Runtime.get().load_program(pte).load_method("forward").execute(list(inputs))[0]
    _close(got, want)


@pytest.mark.parametrize("name", NAMES)
def test_zoo_plan_is_tight(zoo, name):
    info = inspect(zoo[name][3])
    assert info["lower_bound_bytes"] <= info["planned_bytes"] <= 1.05 * info["lower_bound_bytes"], info["plan_efficiency"]


def test_cli_lists_and_exports_the_zoo(tmp_path, capsys):
    from host_tools.cli import main

    assert main(["zoo"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in NAMES)
    path = str(tmp_path / "kws.pte")
    assert main(["export", "--zoo", "mlp", "-o", path]) == 0
    assert main(["run", path, "--target", "cpython", "--repeat", "1"]) == 0
    assert main(["export", "--zoo", "no_such_model"]) == 1
    assert "the zoo has" in capsys.readouterr().err

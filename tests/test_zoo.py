"""Every zoo model: our .pte equals PyTorch on CPython, unix MicroPython and (the
smaller ones) WebAssembly; ExecuTorch's own .pte of it runs on mpy_et (with its
unfolded batch norms: the _native_batch_norm_legit_no_training kernel on every
zoo model that has batch norm); ours runs in ExecuTorch's runtime; its memory
plan passes the planner's verifier and is close to the lower bound; the MLPerf
Tiny models have their reference sizes; the weights are deterministic."""

from unittest import mock

import pytest
import torch

from host_tools import export, inspect, run
from host_tools.analysis.macs import count_macs
from host_tools.planning import memory_plan
from host_tools.zoo import MODELS, build

ATOL = 1e-4
WASM_MAX_MACS = 500_000  # larger models take too long on WebAssembly for the suite
UNIX_HEAP = 8 * 1024 * 1024  # room for every zoo model (MobileNetV1: ~1.3 MB after load)
NAMES = sorted(MODELS)


@pytest.fixture(scope="module")
def zoo():
    """name -> (model, inputs, PyTorch outputs, our .pte); every plan made
    here went through memory_plan.verify."""
    out = {}
    for name in NAMES:
        model, inputs = build(name)
        with torch.no_grad():
            want = model(*inputs)
        with mock.patch.object(memory_plan, "verify", wraps=memory_plan.verify) as verify:
            pte = export(model, inputs)
        assert verify.called, name
        out[name] = (model, inputs, want, pte)
    return out


def _close(got, want):
    torch.testing.assert_close(got, want, atol=ATOL, rtol=ATOL)


@pytest.mark.parametrize("name", NAMES)
def test_zoo_model_on_cpython_and_unix(zoo, name):
    model, inputs, want, pte = zoo[name]
    targets = ["cpython", "unix"] + (["wasm"] if count_macs(model, inputs) <= WASM_MAX_MACS else [])
    for target in targets:
        got = run(pte, inputs, target, repeat=1, heap_bytes=UNIX_HEAP if target == "unix" else None).outputs
        assert len(got) == 1, (name, target, len(got))
        _close(got[0], want)


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


# MACs of MLPerf Tiny's reference models, layer by layer (output elements x terms each)
MLPERF_TINY_MACS = {
    # 10x4 stride-2 conv to 25x5x64; 4 x (3x3 depthwise + 1x1 64->64) at 25x5; fc 64->12
    "ds_cnn": 25 * 5 * 64 * 40 + 4 * (25 * 5 * 64 * (9 + 64)) + 64 * 12,
    # 3x3 stride-2 conv to 48x48x8; 13 depthwise-separable blocks (size, in, out); fc 256->2
    "mobilenet_v1_025": 48 * 48 * 8 * 27
    + sum(
        s * s * (cin * 9 + cout * cin)
        for s, cin, cout in [(48, 8, 16), (24, 16, 32), (24, 32, 32), (12, 32, 64), (12, 64, 64), (6, 64, 128)]
        + [(6, 128, 128)] * 5
        + [(3, 128, 256), (3, 256, 256)]
    )
    + 256 * 2,
    # stem 3x3 3->16; stack 1: two 3x3 16->16 at 32x32; stacks 2, 3: 3x3 stride 2, 3x3, 1x1 skip; fc 64->10
    "resnet8": 32 * 32 * 16 * (27 + 2 * 144) + 16 * 16 * 32 * (144 + 288 + 16) + 8 * 8 * 64 * (288 + 576 + 32) + 64 * 10,
    # 640-128-128-128-128-8-128-128-128-128-640
    "fc_autoencoder": 640 * 128 + 3 * 128 * 128 + 128 * 8 + 8 * 128 + 3 * 128 * 128 + 128 * 640,
}


@pytest.mark.parametrize("name", sorted(MLPERF_TINY_MACS))
def test_mlperf_tiny_models_have_their_reference_size(name):
    model, inputs = build(name)
    assert count_macs(model, inputs) == MLPERF_TINY_MACS[name], (name, count_macs(model, inputs))


def test_zoo_is_deterministic():
    for name in NAMES:
        (m1, x1), (m2, x2) = build(name), build(name)
        for (k, a), b in zip(m1.state_dict().items(), m2.state_dict().values()):
            assert torch.equal(a, b), (name, k)
        assert all(torch.equal(a, b) for a, b in zip(x1, x2)), name


def test_cli_lists_and_exports_the_zoo(tmp_path, capsys):
    from host_tools.cli import main

    assert main(["zoo"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in NAMES)
    assert "%d" % MLPERF_TINY_MACS["ds_cnn"] in out
    path = str(tmp_path / "mlp.pte")
    assert main(["export", "--zoo", "mlp", "-o", path]) == 0
    assert main(["run", path, "--target", "cpython", "--repeat", "1"]) == 0
    assert main(["export", "--zoo", "no_such_model"]) == 1
    assert "the zoo has" in capsys.readouterr().err

"""Export -> run on every target -> equal to PyTorch eager."""

import pytest
import torch
from conftest import TARGETS, tolerance

from host_tools import run


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_matches_pytorch(examples, name, target):
    model, inputs, expected, pte = examples[name]
    res = run(pte, inputs, target, repeat=1)
    assert len(res.outputs) == len(expected)
    tol = tolerance(target, model, inputs)
    for got, want in zip(res.outputs, expected):
        assert got.dtype == want.dtype and got.shape == want.shape, (name, target, got.shape, want.shape)
        torch.testing.assert_close(got, want, atol=tol, rtol=tol, msg=lambda m: "%s on %s: %s" % (name, target, m))
    s = res.stats
    assert s["execute_us"] > 0 and s["load_us"] > 0
    assert s["arena_bytes"] > 0
    if target != "cpython":
        assert s["execute_heap_bytes"] is not None and s["load_method_alloc_bytes"] > 0


def test_inputs_are_checked_on_device(examples):
    _, inputs, _, pte = examples["cnn"]
    from host_tools.targets import TargetError

    with pytest.raises(TargetError, match=r"InvalidArgument.*expected float32\[1, 1, 28, 28\], got float32\[1, 1, 28, 27\]"):
        run(pte, [torch.zeros(1, 1, 28, 27)], "unix")
    with pytest.raises(TargetError, match=r"expected float32\[1, 1, 28, 28\], got int32"):
        run(pte, [torch.zeros(1, 1, 28, 28, dtype=torch.int32)], "wasm")

import os
import runpy

import pytest
import torch

from host_tools.analysis.macs import longest_reduction
from host_tools.targets import TARGETS as ALL_TARGETS
from host_tools.targets import unavailable

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "host_tools", "examples")
# End-to-end targets: CPython, the MicroPython ports, the small emulated Cortex-M3
# (an RP2040-class heap) and the Cortex-M7 (armv7emdp, double-precision floats);
# the large Cortex-M3 runs what does not fit the small one.
TARGETS = ("cpython", "unix", "wasm", "circuitpython", "cortex-m3", "cortex-m7")
MICROPYTHON_TARGETS = tuple(t for t in TARGETS if t != "cpython")
# CI sets this: there a missing target is a failure, not a skip.
REQUIRE_TARGETS = os.environ.get("MPY_ET_REQUIRE_TARGETS") == "1"
_missing = {}


def require(target):
    """Skip (or, in CI, fail) a test whose target cannot run on this machine."""
    if target not in _missing:
        _missing[target] = unavailable(target)
    reason = _missing[target]
    if reason:
        if REQUIRE_TARGETS:
            pytest.fail("target %s is required here (MPY_ET_REQUIRE_TARGETS=1): %s" % (target, reason))
        pytest.skip("target %s unavailable: %s" % (target, reason))


@pytest.fixture(autouse=True)
def _target_available(request):
    """Every test parametrized with `target` needs that target."""
    callspec = getattr(request.node, "callspec", None)
    if callspec is not None and callspec.params.get("target") in ALL_TARGETS:
        require(callspec.params["target"])


def pytest_terminal_summary(terminalreporter):
    for target, reason in sorted(_missing.items()):
        if reason:
            terminalreporter.write_line("NOT TESTED on %s: %s" % (target, reason), yellow=True)


ATOL = RTOL = 1e-5
# CircuitPython's floats are 30-bit: 22 significant bits, truncated, so each
# operation may be off by u = 2**-21 (its machine epsilon, 4.8e-7). A sum of K
# products carries up to K*u relative error (Higham's gamma_K); the tolerance
# is that bound for the model's longest reduction (the example CNN: 400 -> 1.9e-4).
CIRCUITPYTHON_U = 2.0**-21


def tolerance(target, model, inputs):
    """atol = rtol for comparing a target's outputs with PyTorch's (float32)."""
    if target != "circuitpython":
        return ATOL
    return max(ATOL, longest_reduction(model, inputs) * CIRCUITPYTHON_U)


def load_example(name):
    ns = runpy.run_path(os.path.join(EXAMPLES, name + ".py"))
    return ns["model"], tuple(ns["example_inputs"])


@pytest.fixture(scope="session")
def examples():
    """name -> (model, inputs, expected outputs list, our .pte bytes)."""
    from host_tools import export

    out = {}
    for name in ("mlp", "cnn"):
        model, inputs = load_example(name)
        with torch.no_grad():
            expected = model(*inputs)
        out[name] = (model, inputs, [expected], export(model, inputs))
    return out


@pytest.fixture(scope="session")
def et_programs(examples):
    """name -> .pte bytes written by ExecuTorch's own exporter for the same model."""
    from executorch.exir import to_edge

    return {name: to_edge(torch.export.export(m, inp)).to_executorch().buffer for name, (m, inp, _, _) in examples.items()}

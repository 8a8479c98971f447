import os
import runpy

import pytest
import torch

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "host_tools", "examples")
TARGETS = ("cpython", "unix", "wasm")


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

"""ExecuTorch conformance, both ways, against executorch==1.5.1."""

import pytest
import torch
from conftest import TARGETS, tolerance

import mpy_et
from host_tools import run


def _et_run(pte, inputs):
    from executorch.runtime import Runtime

    method = Runtime.get().load_program(pte).load_method("forward")
    return method.execute(list(inputs))


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_our_pte_runs_in_executorch(examples, name):
    _, inputs, expected, pte = examples[name]
    got = _et_run(pte, inputs)
    for g, w in zip(got, expected):
        torch.testing.assert_close(g, w, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_executorch_pte_runs_on_mpy_et(examples, et_programs, name, target):
    model, inputs, expected, _ = examples[name]
    res = run(et_programs[name], inputs, target, repeat=1)
    tol = tolerance(target, model, inputs)
    for g, w in zip(res.outputs, expected):
        torch.testing.assert_close(g, w, atol=tol, rtol=tol)


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_same_outputs_as_executorch_runtime(examples, name):
    """Our runtime and ExecuTorch's, on the same (our) file, agree closely."""
    _, inputs, _, pte = examples[name]
    ours = run(pte, inputs, "cpython", repeat=1).outputs
    theirs = _et_run(pte, inputs)
    for a, b in zip(ours, theirs):
        torch.testing.assert_close(a, b, atol=1e-6, rtol=1e-6)


def test_arena_smaller_than_executorch(examples, et_programs):
    """Same lifetime rules as ExecuTorch, plus in-place elementwise ops: smaller.
    Preserving the inputs costs at most their size on top."""
    from host_tools import export

    model, inputs, _, pte = examples["cnn"]
    theirs = mpy_et.Program.load(et_programs["cnn"]).load_method().planned_bytes
    ours = mpy_et.Program.load(pte).load_method().planned_bytes
    kept = mpy_et.Program.load(export(model, inputs, preserve_inputs=True)).load_method().planned_bytes
    assert ours < theirs, (ours, theirs)
    assert kept <= theirs + sum(t.numel() * t.element_size() for t in inputs), (kept, theirs)


def test_schema_matches_executorch():
    """Our schema text gives every table field the slot ExecuTorch's gives it."""
    import os

    import executorch

    from host_tools.lowering import fbs

    ours = fbs.load()
    et_dir = os.path.join(list(executorch.__path__)[0], "schema")
    with open(os.path.join(et_dir, "program.fbs")) as f:
        text = f.read()
    with open(os.path.join(et_dir, "scalar_type.fbs")) as f:
        text += f.read()
    theirs = fbs.parse(text)
    assert ours.file_identifier == theirs.file_identifier == "ET12"
    for table, fields in theirs.tables.items():
        mine = {f.name: (f.slot, f.type, f.vector) for f in ours.tables[table]}
        for f in fields:
            assert mine.get(f.name) == (f.slot, f.type, f.vector), (table, f.name)
    assert ours.unions == theirs.unions
    for enum, (base, members) in theirs.enums.items():
        assert ours.enums[enum] == (base, members), enum


def test_generated_schema_is_current():
    from host_tools.lowering import fbs, gen_schema

    with open(gen_schema.OUT_PATH) as f:
        assert f.read() == gen_schema.generate(fbs.load()), "run: python -m host_tools.lowering.gen_schema"


class _Gather(torch.nn.Module):
    """ExecuTorch writes a None entry (-1) in the optional tensor list of x[:, idx]."""

    def forward(self, x):
        return torch.relu(x[:, torch.tensor([2, 0])]) * 2


class _NoWeights(torch.nn.Module):
    """No constants: ExecuTorch lists an empty segment and writes no extended header."""

    def forward(self, x):
        return torch.relu(x) * 2


@pytest.mark.parametrize("target", ["cpython", "unix"])
@pytest.mark.parametrize("model", [_Gather(), _NoWeights()], ids=["gather", "no_weights"])
def test_executorch_pte_with_none_list_items_or_no_weights(model, target):
    from executorch.exir import to_edge

    x = (torch.randn(3, 4, 5),)
    pte = to_edge(torch.export.export(model, x)).to_executorch().buffer
    got = run(pte, x, target, repeat=1).outputs[0]
    torch.testing.assert_close(got, model(*x))

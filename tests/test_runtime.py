"""Runtime guarantees: execute() does not allocate, constants are not copied,
the planner's plan is verified, the CLI works."""

import os

import pytest
import torch
from conftest import MICROPYTHON_TARGETS

import mpy_et
from host_tools import export, run
from host_tools.export import capture, supported_ops
from host_tools.lowering.ir import tensor_bytes
from host_tools.lowering.lower import lower
from host_tools.planning import memory_plan


class IntOnly(torch.nn.Module):
    """add, relu, view, cat on int32: nothing here may allocate on MicroPython."""

    def forward(self, a, b):
        s = torch.relu(a + b)
        flat = s.view(-1)
        return torch.cat([flat, torch.relu(b).reshape(-1)], 0) + 3


def _int_inputs():
    g = torch.Generator().manual_seed(3)
    return (torch.randint(-50, 50, (3, 4), dtype=torch.int32, generator=g), torch.randint(-50, 50, (3, 4), dtype=torch.int32, generator=g))


@pytest.mark.parametrize("target", MICROPYTHON_TARGETS)
def test_execute_does_not_allocate_under_heap_lock(target):
    inputs = _int_inputs()
    pte = export(IntOnly(), inputs)
    res = run(pte, inputs, target, heap_lock=True, repeat=1)
    assert res.stats["heap_lock_ok"] is True, res.stats
    assert torch.equal(res.outputs[0], IntOnly()(*inputs))


def test_heap_lock_check_can_fail(examples):
    """Control: the float CNN boxes floats on unix, so the same check reports it."""
    _, inputs, _, pte = examples["cnn"]
    assert run(pte, inputs, "unix", heap_lock=True, repeat=1).stats["heap_lock_ok"] is False


def test_constants_are_views_into_the_program(examples):
    data = examples["cnn"][3]
    for source in (data, memoryview(data)):
        program = mpy_et.Program.load(source)
        assert program.buf is source
        method = program.load_method()
        conv = method._ctxs[0]
        views = [c for c in conv if isinstance(c, memoryview)]
        owners = [v.obj for v in views]
        # every view is over the program (weight, bias) or the arena (input, output)
        assert all(o is data or o is method.buffers[0] for o in owners), owners
        assert sum(o is data for o in owners) == 2


def test_caller_supplied_arena(examples):
    _, inputs, expected, pte = examples["cnn"]
    program = mpy_et.Program.load(pte)
    need = program.load_method().planned_sizes
    arena = bytearray(need[0] + 64)
    m = program.load_method(buffers=[arena])
    assert m.buffers[0] is arena
    m.set_input(0, tensor_bytes(inputs[0]))
    m.execute()
    torch.testing.assert_close(torch.tensor(m.output(0).tolist()), expected[0], atol=1e-5, rtol=1e-5)
    with pytest.raises(mpy_et.MpyEtError, match="is 10 bytes, needs"):
        program.load_method(buffers=[bytearray(10)])


def test_execute_is_repeatable(examples):
    """preserve_inputs=True keeps the inputs intact: execute() again without
    set_input. By default (ExecuTorch's rule) their bytes are reused, so
    inputs are set before each execute()."""
    from host_tools import export

    model, inputs, expected, pte = examples["mlp"]
    kept = mpy_et.Program.load(export(model, inputs, preserve_inputs=True)).load_method()
    for i, t in enumerate(inputs):
        kept.set_input(i, tensor_bytes(t))
    m = mpy_et.Program.load(pte).load_method()
    assert m.planned_bytes < kept.planned_bytes
    for _ in range(3):
        kept.execute()
        torch.testing.assert_close(torch.tensor(kept.output(0).tolist()), expected[0], atol=1e-5, rtol=1e-5)
        for i, t in enumerate(inputs):
            m.set_input(i, tensor_bytes(t))
        m.execute()
        torch.testing.assert_close(torch.tensor(m.output(0).tolist()), expected[0], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_plan_is_verified_and_tight(examples, name):
    model, inputs, _, _ = examples[name]
    ir = lower(capture(model, inputs), supported_ops())
    size = memory_plan.plan(ir)
    memory_plan.verify(ir)
    bufs = memory_plan.lifetimes(ir).values()
    # No plan can be smaller than the most bytes alive at one step.
    steps = range(-1, len(ir.instructions) + 1)
    peak = max(sum(-(-b.nbytes // 16) * 16 for b in bufs if b.start <= k <= b.end) for k in steps)
    assert peak == ir.plan_info["lower_bound_bytes"]
    assert peak <= size <= peak * 1.05, (peak, size)


def test_verifier_catches_overlap(examples):
    model, inputs, _, _ = examples["cnn"]
    ir = lower(capture(model, inputs), supported_ops())
    memory_plan.plan(ir)
    bufs = sorted(memory_plan.lifetimes(ir).values(), key=lambda b: b.nbytes)
    small, big = next((a, b) for a in bufs for b in bufs if a is not b and a.overlaps(b) and a.nbytes <= b.nbytes)
    for m in small.members:  # move one live tensor (and its views) onto another
        ir.tensor(m).offset = ir.tensor(big.owner).offset
    with pytest.raises(memory_plan.PlanError, match="alive together"):
        memory_plan.verify(ir)


def test_cli_export_and_run(tmp_path, capsys):
    from host_tools import cli

    out = str(tmp_path / "mlp.pte")
    model_file = os.path.join(os.path.dirname(cli.__file__), "examples", "mlp.py")
    assert cli.main(["export", model_file, "-o", out]) == 0
    assert os.path.exists(out) and os.path.exists(out + ".ref.pt")
    assert cli.main(["run", out, "--target", "cpython", "--repeat", "1"]) == 0
    printed = capsys.readouterr().out
    assert "MATCH" in printed and "planned arena" in printed


def test_readme_commands_are_what_ci_runs():
    """.ci/run takes its commands from the README, so the two cannot drift."""
    import subprocess

    root = os.path.dirname(os.path.dirname(__file__))
    with open(os.path.join(root, "README.md")) as f:
        readme = f.read().split("```")[1].strip().splitlines()
    assert len(readme) == 2 and "mpy-et demo" in readme[0] and "pytest" in readme[1]
    with open(os.path.join(root, ".ci", "run")) as f:
        ci = f.read()
    extract = next(line for line in ci.splitlines() if "README.md" in line and "awk" in line)
    got = subprocess.run(["bash", "-c", extract + ' && printf "%s\\n" "${commands[@]}"'], cwd=root, capture_output=True, text=True)
    assert got.stdout.splitlines() == readme, (got.stdout, got.stderr)
    assert "python3 -m venv" in ci and "MPY_ET_REQUIRE_TARGETS=1" in ci


_NO_UCTYPES = """
import mpy_et.tensor as T
T.uctypes = None  # as on CircuitPython: no uctypes, no memoryview.cast
T.HAS_CAST = False
import mpy_et
m = mpy_et.Program.load(DATA_DIR + "/m.pte").load_method()
with open(DATA_DIR + "/x.bin", "rb") as f:
    m.set_input(0, f.read())
with open(DATA_DIR + "/g.bin", "rb") as f:
    m.set_input(1, f.read())
m.execute()
assert type(m.output(0).data).__name__ == "StructView"
print(m.output(0).tolist())
"""


@pytest.mark.parametrize("target", ["cpython", "unix"])
def test_struct_fallback_without_uctypes(examples, target):
    """The slow typed-view fallback for ports without uctypes gives the same result."""
    from host_tools.targets import run_code

    _, inputs, expected, pte = examples["mlp"]
    files = {"m.pte": pte, "x.bin": tensor_bytes(inputs[0]), "g.bin": tensor_bytes(inputs[1])}
    out = run_code(target, _NO_UCTYPES, files)
    got = torch.tensor(eval(out.strip().splitlines()[-1]))
    torch.testing.assert_close(got, expected[0], atol=1e-5, rtol=1e-5)

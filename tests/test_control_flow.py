"""torch.cond (issue 22 goal 3): ExecuTorch's JumpFalseCall / MoveCall
instructions, from our exporter (host_tools/lowering/cond.py) and from
ExecuTorch's, run by mpy_et on every target and ours in ExecuTorch's runtime."""

import struct

import pytest
import torch

from host_tools import export, inspect, run
from mpy_et import MpyEtError, Program
from mpy_et import schema as S
from mpy_et.flatbuf import FlatReader
from tests.conftest import TARGETS


class Gate(torch.nn.Module):
    """A wake-word style gate: the big branch only when the input says so."""

    def __init__(self):
        super().__init__()
        self.big = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
        self.small = torch.nn.Linear(8, 4)

    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda x: self.big(x).tanh(), lambda x: self.small(x) * 0.5, (x,))


class Nested(torch.nn.Module):
    """A cond inside a branch, two outputs, a branch returning a copy of its input
    (torch.cond refuses branches that return an input itself)."""

    def forward(self, x, y):
        def inner_t(x, y):
            return x + y, y.clone()

        def inner_f(x, y):
            return x - y, y * 2.0

        def outer_t(x, y):
            return torch.cond(y.sum() > 0, inner_t, inner_f, (x, y))

        def outer_f(x, y):
            return x * 3.0, y.clone()

        a, b = torch.cond(x.sum() > 0, outer_t, outer_f, (x, y))
        return a.relu(), b


def _inputs():
    torch.manual_seed(0)
    return [torch.randn(1, 8).abs(), -torch.randn(1, 8).abs()]


@pytest.fixture(scope="module")
def gate():
    torch.manual_seed(0)
    model = Gate().eval()
    return model, export(model, (torch.randn(1, 8),))


@pytest.mark.parametrize("target", TARGETS)
def test_cond_runs_both_branches_on_every_target(gate, target):
    model, pte = gate
    for x in _inputs():
        got = run(pte, (x,), target, repeat=1).outputs[0]
        tol = 2e-4 if target == "circuitpython" else 1e-5
        assert torch.allclose(got, model(x), atol=tol, rtol=tol), (target, got, model(x))


@pytest.mark.parametrize("target", ["cpython", "unix", "cortex-m3"])
def test_nested_cond_with_two_outputs(target):
    model = Nested().eval()
    torch.manual_seed(1)
    pte = export(model, (torch.randn(2, 3), torch.randn(2, 3)))
    for sx, sy in ((1, 1), (1, -1), (-1, 1)):
        x, y = sx * torch.rand(2, 3) + sx * 0.1, sy * torch.rand(2, 3) + sy * 0.1
        got = run(pte, (x, y), target, repeat=1).outputs
        want = model(x, y)
        assert all(torch.allclose(g, w, atol=1e-5) for g, w in zip(got, want)), (target, sx, sy)


def test_our_cond_program_runs_in_executorch(gate):
    from executorch.runtime import Runtime

    model, pte = gate
    method = Runtime.get().load_program(pte).load_method("forward")
    for x in _inputs():
        assert torch.allclose(method.execute([x])[0], model(x), atol=1e-5)


@pytest.mark.parametrize("target", ["cpython", "unix", "cortex-m3"])
def test_executorch_cond_program_runs_on_mpy_et(target):
    from executorch.exir import to_edge

    torch.manual_seed(0)
    model = Gate().eval()
    pte = to_edge(torch.export.export(model, (torch.randn(1, 8),))).to_executorch().buffer
    for x in _inputs():
        got = run(pte, (x,), target, repeat=1)
        assert torch.allclose(got.outputs[0], model(x), atol=1e-5)


def test_constant_condition_inlines_one_branch():
    class Const(torch.nn.Module):
        def forward(self, x):
            return torch.cond(torch.tensor(True), lambda x: x + 1.0, lambda x: x - 1.0, (x,))

    pte = export(Const(), (torch.randn(3),))
    info = inspect(pte)
    assert info["operators"] == ["aten::add.Scalar_out"] and info["instructions"] == 1


@pytest.mark.parametrize("target", ["unix", "cortex-m3"])
def test_cond_runs_with_the_heap_locked(target):
    """Jump and move steps allocate nothing: with byte-moving branches every
    step is allocation-free, execute() locks the heap and allocates 0 bytes."""

    class Flag(torch.nn.Module):  # the condition is an input: a gate's decision
        def forward(self, x, flag):
            return torch.cond(flag, lambda x: x.clone(), lambda x: x.t().contiguous(), (x,))

    x = torch.arange(9, dtype=torch.int8).reshape(3, 3)
    pte = export(Flag(), (x, torch.tensor(True)))
    for flag in (True, False):
        r = run(pte, (x, torch.tensor(flag)), target, repeat=1)
        assert torch.equal(r.outputs[0], x if flag else x.t())
        assert r.stats["execute_heap_locked"] is True and r.stats["execute_heap_bytes"] == 0
    info = inspect(pte)
    assert info["planned_bytes"] >= info["lower_bound_bytes"] > 0


def _jump_field(pte, slot):
    """Byte position of the first JumpFalseCall's field `slot`."""
    size = struct.unpack_from("<Q", pte, 16)[0]
    r = FlatReader(pte, size)
    root = r.table(r.u32(0, ""), "")
    plan = r.table_at(r.vector(root, S.PROGRAM_EXECUTION_PLAN, 4, "")[0], 0, "")
    chain = r.table_at(r.vector(plan, S.EXECUTION_PLAN_CHAINS, 4, "")[0], 0, "")
    start, n = r.vector(chain, S.CHAIN_INSTRUCTIONS, 4, "")
    for i in range(n):
        ins = r.table_at(start, i, "")
        if r.scalar(ins, S.INSTRUCTION_INSTR_ARGS_TYPE, FlatReader.u8, 0, "") == S.INSTRUCTION_ARGUMENTS_JUMP_FALSE_CALL:
            return i, r.field(r.subtable(ins, S.INSTRUCTION_INSTR_ARGS, ""), slot, "")
    raise LookupError("no jump")


@pytest.mark.parametrize("where", ["backward", "past the end"])
def test_bad_jumps_are_rejected_at_load(gate, where):
    _, pte = gate
    i, pos = _jump_field(pte, S.JUMP_FALSE_CALL_DESTINATION_INSTRUCTION)
    bad = bytearray(pte)
    struct.pack_into("<i", bad, pos, i - 1 if where == "backward" else 10_000)
    with pytest.raises(MpyEtError, match="eq.Scalar" if where == "backward" else "a jump goes to another"):
        Program.load(bytes(bad)).load_method("forward")


def test_jump_on_a_missing_value_is_rejected(gate):
    _, pte = gate
    _, pos = _jump_field(pte, S.JUMP_FALSE_CALL_COND_VALUE_INDEX)
    bad = bytearray(pte)
    struct.pack_into("<i", bad, pos, 100_000)
    with pytest.raises(MpyEtError, match="refers to values"):
        Program.load(bytes(bad)).load_method("forward")

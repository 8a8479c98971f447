"""torch.ops.higher_order.map (issue 22 goal 3): ExecuTorch's loop of
select_copy at a counter, the body, et_copy_index and a backward
JumpFalseCall, from our exporter (host_tools/lowering/map.py) and from
ExecuTorch's, run by mpy_et on every target (mpy_et/loops.py), ours in
ExecuTorch's runtime, and loops that are not map loops refused at load."""

import struct

import pytest
import torch
from torch._higher_order_ops.map import map as tmap

from host_tools import export, inspect, run
from host_tools.lowering import map as map_lowering
from host_tools.lowering.nodes import UnsupportedOps
from mpy_et import MpyEtError, Program
from mpy_et import schema as S
from mpy_et.flatbuf import FlatReader
from tests.conftest import TARGETS


class Frames(torch.nn.Module):
    """A linear layer over each row, with a loop-invariant operand."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)

    def forward(self, xs, y):
        return tmap(lambda x, y: torch.relu(self.lin(x)) + y, xs, y)


class TwoByTwo(torch.nn.Module):
    """Two mapped tensors, two results, a result read after the loop and mapped again."""

    def forward(self, xs, zs):
        a, b = tmap(lambda x, z: (x * z, (x - z).tanh()), xs, zs)
        return a.sum(0), tmap(lambda r: r * 2.0, b)  # a map over a map's result


class Nested(torch.nn.Module):
    """A map inside a map's body."""

    def forward(self, xs):
        return tmap(lambda x: tmap(lambda r: r.flip(0) * 2.0, x), xs)


class Scaled(Frames):
    """Frames after one op: its loop starts at instruction 1 (a jump to 0 is
    a field the flatbuffer leaves out, which the malformed-file tests cannot patch)."""

    def forward(self, xs, y):
        return super().forward(xs * 1.5, y)


def _frames(cls=Frames):
    torch.manual_seed(0)
    return cls().eval(), (torch.randn(5, 4), torch.randn(3))


@pytest.fixture(scope="module")
def frames():
    model, inputs = _frames()
    return model, inputs, export(model, inputs)


@pytest.fixture(scope="module")
def et_frames():
    from executorch.exir import to_edge

    model, inputs = _frames()
    return model, inputs, to_edge(torch.export.export(model, inputs)).to_executorch().buffer


@pytest.mark.parametrize("target", TARGETS)
def test_map_runs_on_every_target(frames, target):
    model, inputs, pte = frames
    got = run(pte, inputs, target, repeat=2).outputs[0]
    tol = 2e-4 if target == "circuitpython" else 1e-5
    assert torch.allclose(got, model(*inputs), atol=tol, rtol=tol), (target, got, model(*inputs))


@pytest.mark.parametrize("target", TARGETS)
def test_executorch_map_program_runs_on_mpy_et(et_frames, target):
    model, inputs, pte = et_frames
    got = run(pte, inputs, target, repeat=2).outputs[0]
    tol = 2e-4 if target == "circuitpython" else 1e-5
    assert torch.allclose(got, model(*inputs), atol=tol, rtol=tol), (target, got)


def test_our_map_program_runs_in_executorch(frames):
    from executorch.runtime import Runtime

    model, inputs, pte = frames
    method = Runtime.get().load_program(pte).load_method("forward")
    for _ in range(2):  # the counter is back at 0 for the second call
        assert torch.allclose(method.execute(list(inputs))[0], model(*inputs), atol=1e-5)


def test_map_is_written_as_executorch_writes_it(frames, et_frames):
    ours, theirs = inspect(frames[2]), inspect(et_frames[2])
    loop = {"executorch_prim::add.Scalar", "executorch_prim::eq.Scalar", "executorch_prim::sub.Scalar"}
    loop |= {"executorch_prim::et_copy_index.tensor", "aten::select_copy.int_out"}
    assert loop <= set(ours["operators"]) and loop <= set(theirs["operators"])
    # the body's tensors are planned once; ExecuTorch's plan keeps the permuted weight as well
    assert ours["planned_bytes"] <= theirs["planned_bytes"], (ours["planned_bytes"], theirs["planned_bytes"])


@pytest.mark.parametrize("target", ["cpython", "unix", "cortex-m3"])
def test_two_mapped_tensors_and_nested_maps(target):
    torch.manual_seed(2)
    xs, zs = torch.randn(4, 3), torch.randn(4, 3)
    pte = export(TwoByTwo(), (xs, zs))
    got = run(pte, (xs, zs), target, repeat=1).outputs
    want = TwoByTwo()(xs, zs)
    assert all(torch.allclose(g, w, atol=1e-5) for g, w in zip(got, want)), target
    x3 = torch.randn(3, 2, 5)
    pte = export(Nested(), (x3,))
    got = run(pte, (x3,), target, repeat=2).outputs[0]
    assert torch.allclose(got, Nested()(x3), atol=1e-6), target


@pytest.mark.parametrize("target", ["unix", "cortex-m3"])
def test_map_runs_with_the_heap_locked(target):
    """Select, copy-index, counter and jump steps allocate nothing: with a
    byte-moving body execute() locks the heap and allocates 0 bytes."""

    class Rows(torch.nn.Module):
        def forward(self, xs):
            return tmap(lambda x: x.t().contiguous(), xs)

    xs = torch.arange(5 * 2 * 3, dtype=torch.int8).reshape(5, 2, 3)
    pte = export(Rows(), (xs,))
    r = run(pte, (xs,), target, repeat=3)
    assert torch.equal(r.outputs[0], xs.transpose(1, 2))
    assert r.stats["execute_heap_locked"] is True and r.stats["execute_heap_bytes"] == 0


def _instructions(pte):
    size = struct.unpack_from("<Q", pte, 16)[0]
    r = FlatReader(pte, size)
    root = r.table(r.u32(0, ""), "")
    plan = r.table_at(r.vector(root, S.PROGRAM_EXECUTION_PLAN, 4, "")[0], 0, "")
    chain = r.table_at(r.vector(plan, S.EXECUTION_PLAN_CHAINS, 4, "")[0], 0, "")
    start, n = r.vector(chain, S.CHAIN_INSTRUCTIONS, 4, "")
    return r, start, n


def _jump_destination(pte):
    """(instruction index, byte position of its destination) of the first JumpFalseCall."""
    r, start, n = _instructions(pte)
    for i in range(n):
        ins = r.table_at(start, i, "")
        if r.scalar(ins, S.INSTRUCTION_INSTR_ARGS_TYPE, FlatReader.u8, 0, "") == S.INSTRUCTION_ARGUMENTS_JUMP_FALSE_CALL:
            return i, r.field(r.subtable(ins, S.INSTRUCTION_INSTR_ARGS, ""), S.JUMP_FALSE_CALL_DESTINATION_INSTRUCTION, "")
    raise LookupError("no jump")


def _patched(pte, pos, value):
    bad = bytearray(pte)
    struct.pack_into("<i", bad, pos, value)
    return bytes(bad)


def test_a_loop_that_is_not_a_map_is_rejected_at_load():
    """A backward jump on a condition no counter drives (a cond's jump turned
    back) could run forever: NotSupported at load, naming the jump."""

    class Gate(torch.nn.Module):
        def forward(self, x):
            return torch.cond(x.sum() > 0, lambda x: x + 1.0, lambda x: x - 1.0, (x,))

    pte = export(Gate(), (torch.randn(3),))
    i, pos = _jump_destination(pte)
    with pytest.raises(MpyEtError, match=r"instruction %d \(JumpFalseCall back to instruction 0\).*eq.Scalar" % i):
        Program.load(_patched(pte, pos, 0)).load_method("forward")


@pytest.mark.parametrize("dest", ["self", 10_000])
def test_jumps_outside_the_chain_are_rejected(dest):
    pte = export(*_frames(Scaled))
    i, pos = _jump_destination(pte)
    with pytest.raises(MpyEtError, match="a jump goes to another"):
        Program.load(_patched(pte, pos, i if dest == "self" else dest)).load_method("forward")


def test_a_loop_that_skips_its_counter_step_is_rejected():
    """The loop's start moved past the counter's step: a loop that would
    never count is refused; one that starts before the map's first
    instruction (at the op before it) runs that op again each time, and ends."""
    model, inputs = _frames(Scaled)
    pte = export(model, inputs)
    i, pos = _jump_destination(pte)
    with pytest.raises(MpyEtError, match="add.Scalar"):
        Program.load(_patched(pte, pos, i - 1)).load_method("forward")
    got = run(_patched(pte, pos, 0), inputs, "cpython", repeat=1).outputs[0]
    assert torch.isfinite(got).all()


def test_a_counter_not_reset_after_the_loop_is_rejected(monkeypatch):
    """The export checks that the device can load what it wrote: a counter left
    at n after the loop (entered again, it would never equal n) is refused there."""
    monkeypatch.setattr(map_lowering, "SUB", map_lowering.ADD)
    with pytest.raises(UnsupportedOps, match="reset by sub.Scalar"):
        export(*_frames())


def test_a_map_over_a_dynamic_dim_is_refused_at_export():
    from torch.export import Dim

    class Twice(torch.nn.Module):
        def forward(self, xs):
            return tmap(lambda x: x * 2.0, xs)

    with pytest.raises(UnsupportedOps, match="map: over a dynamic dim"):
        export(Twice(), (torch.randn(6, 3),), dynamic_shapes={"xs": {0: Dim("n", max=8)}})


@pytest.mark.parametrize("target", ["cpython", "unix", "cortex-m3"])
def test_profile_of_a_map_sums_each_step_over_its_iterations(target, tmp_path):
    """The event tracer follows jumps: per step, the time spent in it over
    all iterations; the ETDump has one event per step that ran."""

    class Rows(torch.nn.Module):
        def forward(self, xs):
            return tmap(lambda x: x.t().contiguous(), xs)

    xs = torch.arange(9 * 2 * 3, dtype=torch.int8).reshape(9, 2, 3)
    pte = export(Rows(), (xs,))
    res = run(pte, (xs,), target, repeat=1, profile=2)
    assert torch.equal(res.outputs[0], xs.transpose(1, 2))
    prof = res.profile
    steps = Program.load(pte).load_method().step_ops()
    assert [(r["instruction"], r["operator"]) for r in prof.instructions] == steps
    assert prof.execute == pytest.approx(sum(r["time"] for r in prof.instructions) + prof.overhead, abs=prof.execute * 0.2 + 2)
    if target == "cortex-m3":  # deterministic counts: a step in the loop ran 9 times, the reset once
        by = {r["operator"]: r["time"] for r in prof.instructions}
        assert by["executorch_prim::add.Scalar"] > 5 * by["executorch_prim::sub.Scalar"], by
        assert res.stats["execute_heap_locked"] is True and res.stats["profile_heap_bytes"] == 0
    from executorch.devtools import Inspector

    path = tmp_path / "map.etdp"
    path.write_bytes(res.etdump)
    names = [e.name for block in Inspector(etdump_path=str(path)).event_blocks for e in block.events]
    assert "executorch_prim::et_copy_index.tensor" in names and "JumpFalseCall" in names, names

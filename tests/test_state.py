"""Mutable buffers (module state): buffers forward updates in place keep
their values across execute() calls, start from the program's initial
values, come back to them with Method.reset_state(); both directions with
ExecuTorch 1.5.1 (its .pte on mpy_et, ours in its runtime)."""

import copy
import runpy
import struct

import pytest
import torch

from host_tools import export
from host_tools.lowering.lower import UnsupportedOps
from host_tools.targets.calls import default_calls, reference_outputs, run_calls
from mpy_et import MpyEtError, Program
from mpy_et.errors import INVALID_PROGRAM
from tests.conftest import ATOL, CIRCUITPYTHON_U, EXAMPLES


@pytest.fixture(scope="module")
def streaming():
    """(model, calls, PyTorch's outputs per call, our .pte) of examples/streaming.py."""
    ns = runpy.run_path(EXAMPLES + "/streaming.py")
    model, calls = ns["model"], ns["calls"]
    return model, calls, reference_outputs(model, calls), export(model, ns["example_inputs"])


class Counter(torch.nn.Module):
    """State with an initial value that is not zero, updated by copy_ and add_."""

    def __init__(self):
        super().__init__()
        self.register_buffer("state", torch.arange(4, dtype=torch.float32))
        self.register_buffer("count", torch.full((1,), 7.0))

    def forward(self, x):
        new = self.state * 0.5 + x
        self.state.copy_(new)
        self.count.add_(1)
        return new + self.count


class Window(torch.nn.Module):
    """A sliding window of samples: every step is a byte copy, so execute()
    runs with the heap locked (mpy_et/noalloc.py), state included."""

    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.arange(12, dtype=torch.float32).reshape(1, 3, 4))

    def forward(self, sample):
        self.window.copy_(torch.cat([self.window[:, :, 1:], sample], dim=2))
        return self.window.clone()


def _assert_calls(results, expected, atol, what):
    assert len(results) == len(expected), what
    for k, (res, want) in enumerate(zip(results, expected)):
        assert len(res.outputs) == len(want), (what, k)
        for got, w in zip(res.outputs, want):
            assert got.dtype == w.dtype and got.shape == w.shape, (what, k, got, w)
            assert torch.allclose(got.double(), w.double(), atol=atol, rtol=atol), (what, k, got, w)


def _mpy_et_calls(data, calls):
    """Each call's outputs, made with the runtime in this process."""
    program = Program.load(data)
    methods, out = {}, []
    for name, inputs in calls:
        m = methods.get(name) or methods.setdefault(name, program.load_method(name))
        if isinstance(inputs, str):
            m.reset_state()
            out.append([])
            continue
        for i, t in enumerate(inputs):
            m.set_input(i, t.contiguous().flatten().tolist())
        m.execute()
        out.append([torch.tensor(m.output(i).tolist(), dtype=torch.float32) for i in range(m.outputs_size())])
    return out


def test_state_keeps_its_value_across_calls_and_resets():
    model = Counter()
    x = torch.ones(4)
    calls = default_calls((x,))
    data = export(model, (x,))
    assert dict(model.named_buffers())["count"].item() == 7.0  # export leaves the model's state alone
    method = Program.load(data).load_method()
    assert method.state_bytes == 16 + 4
    _assert_calls(run_calls(data, calls, "cpython"), reference_outputs(model, calls), ATOL, "counter")


def test_state_lives_apart_from_everything_else():
    """The plan gives state the whole method: no other tensor shares its bytes."""
    from host_tools.export import capture, supported_ops
    from host_tools.lowering.lower import lower
    from host_tools.planning import memory_plan

    ir = lower(capture(Counter(), (torch.ones(4),)), supported_ops())
    memory_plan.plan(ir)
    states = {ir.storage_of(i) for i in ir.state}
    assert len(states) == 2
    spans = memory_plan.lifetimes(ir)
    for owner in states:
        assert (spans[owner].start, spans[owner].end) == (-1, len(ir.instructions)), ir.tensor(owner).name
    assert ir.instructions[-1].op == "aten::copy_"


@pytest.mark.parametrize("target", ["cpython", "unix", "circuitpython"])
def test_streaming_example_over_calls(streaming, target):
    model, calls, expected, data = streaming
    # CircuitPython's 30-bit floats: each call's outputs carry the error of the
    # longest sum (the 15-term convolution) plus the state's, over 4 calls.
    atol = 4 * 16 * CIRCUITPYTHON_U if target == "circuitpython" else ATOL
    results = run_calls(data, calls, target)
    _assert_calls(results, expected, atol, target)
    reset = results[4].stats
    assert reset["action"] == "reset_state" and results[0].stats["state_bytes"] == 3 * 32 * 4 + 4 * 4 + 4
    if target != "cpython":
        assert reset["execute_heap_bytes"] == 0 and reset["reset_heap_locked"] is True, reset


@pytest.mark.parametrize("target", ["unix", "circuitpython"])
def test_stateful_step_runs_with_the_heap_locked(target):
    model = Window()
    calls = [("forward", (torch.full((1, 3, 1), float(k)),)) for k in range(3)] + [("forward", "reset_state")]
    calls.append(("forward", (torch.full((1, 3, 1), -1.0),)))
    data = export(model, calls[0][1])
    results = run_calls(data, calls, target)
    _assert_calls(results, reference_outputs(model, calls), 0, target)
    for r in results:
        if r.stats["action"] == "execute":
            assert r.stats["execute_heap_locked"] is True and r.stats["execute_heap_bytes"] == 0, r.stats


def _executorch_pte(model, inputs, initialized):
    from executorch.exir import ExecutorchBackendConfig, to_edge_transform_and_lower
    from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass

    model = copy.deepcopy(model).requires_grad_(False)  # its passes run the graph on the real parameters
    names = [n for n, _ in model.named_buffers()]
    passes = [InitializedMutableBufferPass(names)] if initialized else []
    ep = torch.export.export(model, inputs)
    return to_edge_transform_and_lower(ep).to_executorch(ExecutorchBackendConfig(passes=passes)).buffer


def _executorch_calls(data, calls):
    from executorch.runtime import Runtime

    program = Runtime.get().load_program(data)
    out = []
    for name, inputs in calls:
        out.append([t.clone() for t in program.load_method(name).execute(list(inputs))])
    return out


@pytest.mark.parametrize("initialized", [True, False], ids=["initial-values", "executorch-default"])
def test_executorch_stateful_pte_runs_on_mpy_et(streaming, initialized):
    """ExecuTorch's .pte: with InitializedMutableBufferPass the state starts
    at the buffers' values; by default its initial state is 'meaningless'
    (here and in ExecuTorch's runtime: zeros). Both match its runtime."""
    model, calls, expected, _ = streaming
    execute_calls = [c for c in calls if not isinstance(c[1], str)][:4]
    data = _executorch_pte(model, execute_calls[0][1], initialized)
    ours = _mpy_et_calls(data, execute_calls)
    theirs = _executorch_calls(data, execute_calls)
    for k, (a, b) in enumerate(zip(ours, theirs)):
        assert torch.allclose(a[0], b[0], atol=ATOL), (k, a, b)
        assert a[1].to(torch.int32).tolist() == b[1].tolist(), (k, a, b)
    if initialized:
        _assert_calls_eager(ours, expected[:4])
        _assert_calls(run_calls(data, execute_calls, "unix"), theirs, ATOL, "executorch's .pte on unix")
    again = _mpy_et_calls(data, execute_calls[:2] + [("forward", "reset_state"), execute_calls[0]])
    assert torch.equal(again[3][0], ours[0][0]) and torch.equal(again[3][1], ours[0][1]), (again, ours)  # reset: as loaded
    program = Program.load(data)
    m = program.load_method()
    assert m.state_bytes == 3 * 32 * 4 + 4 * 4 + 4


def _assert_calls_eager(ours, expected):
    for k, (a, w) in enumerate(zip(ours, expected)):
        assert torch.allclose(a[0], w[0], atol=ATOL), (k, a, w)


def test_our_stateful_pte_runs_in_executorch(streaming):
    model, calls, expected, data = streaming
    execute_calls = [c for c in calls if not isinstance(c[1], str)][:4]
    theirs = _executorch_calls(data, execute_calls)
    for k, (got, want) in enumerate(zip(theirs, expected[:4])):
        assert torch.allclose(got[0], want[0], atol=ATOL), (k, got, want)
        assert torch.equal(got[1], want[1]), (k, got, want)


def test_streamed_program_reads_initial_values_from_the_file(tmp_path):
    path = str(tmp_path / "counter.pte")
    export(Counter(), (torch.ones(4),), path)
    method = Program.load(path, stream=True).load_method()
    outs = []
    for _ in range(2):
        method.set_input(0, [1.0] * 4)
        method.execute()
        outs.append(method.output(0).tolist())
    method.reset_state()
    method.set_input(0, [1.0] * 4)
    method.execute()
    assert outs[0] == [9.0, 9.5, 10.0, 10.5] and method.output(0).tolist() == outs[0], outs
    assert outs[1] != outs[0]


def test_mutating_an_input_is_a_clear_error():
    class Bad(torch.nn.Module):
        def forward(self, x):
            x.add_(1)
            return x * 2

    with pytest.raises(UnsupportedOps, match=r"mutates its input\(s\) \['x'\] in place"):
        export(Bad(), (torch.ones(3),))


def test_initial_value_outside_its_segment_is_invalid_program():
    data = bytearray(export(Counter(), (torch.ones(4),)))
    program = Program.load(bytes(data))
    r = program.reader
    from mpy_et import schema as S

    start, _ = r.vector(program.root, S.PROGRAM_MUTABLE_DATA_SEGMENTS, 4, "mds")
    sub = r.table_at(start, 0, "mds")
    s_off, k = r.vector(sub, S.SUBSEGMENT_OFFSETS_OFFSETS, 8, "offsets")
    assert k == 3
    struct.pack_into("<Q", data, s_off + 8 * 2, 1 << 20)  # the count's initial value, far past the segment
    with pytest.raises(MpyEtError, match="initial value 2 at offset 1048576") as e:
        Program.load(bytes(data)).load_method()
    assert e.value.code == INVALID_PROGRAM


def test_inspect_counts_state_live_at_every_step(streaming):
    """mpy-et inspect reads lifetimes from the instruction list: state (here
    404 bytes) is live from before the first step to after the last."""
    from host_tools import inspect

    data = streaming[3]
    info = inspect(data)
    state = Program.load(data).load_method().state_bytes
    assert min(info["steps"]) >= state, (info["steps"], state)
    assert state < info["lower_bound_bytes"] <= info["planned_bytes"], info

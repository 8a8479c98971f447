"""Several methods in one program (forward, score, reset), exported together
as ExecuTorch does from a dict of exported programs: shared constants, one
state they all see; both directions with ExecuTorch 1.5.1; one board run."""

import copy
import runpy

import pytest
import torch

from host_tools import export
from host_tools.targets.calls import reference_outputs, run_calls
from mpy_et import MpyEtError, Program
from mpy_et.errors import NOT_FOUND
from tests.conftest import ATOL, CIRCUITPYTHON_U, EXAMPLES


@pytest.fixture(scope="module")
def detector():
    """(model, methods, calls, PyTorch's outputs per call, our .pte) of examples/multi_method.py."""
    ns = runpy.run_path(EXAMPLES + "/multi_method.py")
    model, calls = ns["model"], ns["calls"]
    data = export(model, ns["example_inputs"], methods=ns["methods"])
    return model, ns["methods"], calls, reference_outputs(model, calls), data


class Window(torch.nn.Module):
    """forward shifts a sample into a window (byte copies only: heap-locked);
    mean reads it; reset clears it."""

    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.arange(8, dtype=torch.float32).reshape(1, 2, 4))

    def forward(self, sample):
        self.window.copy_(torch.cat([self.window[:, :, 1:], sample], dim=2))
        return self.window.clone()

    def mean(self):
        return self.window.mean(dim=2)

    def reset(self):
        self.window.zero_()


def _assert_calls(results, expected, atol, what):
    assert len(results) == len(expected), what
    for k, (res, want) in enumerate(zip(results, expected)):
        assert len(res.outputs) == len(want), (what, k, res.outputs, want)
        for got, w in zip(res.outputs, want):
            assert got.dtype == w.dtype and got.shape == w.shape, (what, k, got, w)
            assert torch.allclose(got, w, atol=atol, rtol=atol), (what, k, got, w)


@pytest.mark.parametrize("target", ["cpython", "unix", "circuitpython"])
def test_methods_share_state_over_calls(detector, target):
    _, _, calls, expected, data = detector
    atol = 64 * CIRCUITPYTHON_U if target == "circuitpython" else ATOL  # 30-bit floats; the longest sum has 16 terms
    _assert_calls(run_calls(data, calls, target), expected, atol, target)


def test_methods_share_constants_and_place_state_alike(detector):
    model, methods, _, _, data = detector
    single = Program.load(export(model, (torch.randn(1, 16),)))
    program = Program.load(data)
    assert program.method_names == ["forward", "score", "reset"]
    assert program.constant_size == single.constant_size  # fc1 and fc2 stored once for forward and score
    sizes = [program.load_method(n).planned_sizes for n in program.method_names]
    assert len({len(s) for s in sizes}) == 1 and len({s[-1] for s in sizes}) == 1, sizes  # one state memory id, one size
    assert sizes[0][-1] == 16  # evidence: 3 floats, aligned


def test_unknown_method_is_not_found(detector):
    with pytest.raises(MpyEtError, match=r"no method 'step'.*\['forward', 'score', 'reset'\]") as e:
        Program.load(detector[4]).load_method("step")
    assert e.value.code == NOT_FOUND


def test_exporting_a_method_the_model_lacks_is_a_clear_error():
    with pytest.raises(ValueError, match="the model \\(Window\\) has no method 'clear'"):
        export(Window(), (torch.ones(1, 2, 1),), methods={"clear": ()})


def _executorch_multi(model, inputs, methods):
    from executorch.exir import ExecutorchBackendConfig, to_edge
    from executorch.exir.capture._capture import patch_forward
    from executorch.exir.passes import MemoryPlanningPass
    from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass

    model = copy.deepcopy(model).requires_grad_(False)
    eps = {"forward": torch.export.export(model, inputs)}
    for name, args in methods.items():
        with patch_forward(model, getattr(type(model), name)):
            eps[name] = torch.export.export(model, args)
    config = ExecutorchBackendConfig(
        memory_planning_pass=MemoryPlanningPass(share_mutable_buffers=True),
        emit_mutable_buffer_names=True,
        passes=[InitializedMutableBufferPass([n for n, _ in model.named_buffers()])],
    )
    return to_edge(eps).to_executorch(config).buffer


def _executorch_calls(data, calls):
    from executorch.runtime import Runtime

    program = Runtime.get().load_program(data)
    # every method loaded first: ExecuTorch's runtime sets shared state to its
    # initial values again whenever it loads a method (mpy_et: at the first load only)
    methods = {name: program.load_method(name) for name in program.method_names}
    out = []
    for name, inputs in calls:
        got = methods[name].execute(list(inputs))
        out.append([t.clone() for t in got if t is not None])
    return out


@pytest.mark.parametrize("target", ["cpython", "unix"])
def test_executorch_multi_method_pte_runs_on_mpy_et(detector, target):
    model, methods, calls, expected, _ = detector
    data = _executorch_multi(model, calls[0][1], methods)
    theirs = _executorch_calls(data, calls)
    ours = run_calls(data, calls, target)
    _assert_calls(ours, theirs, ATOL, "executorch's .pte on mpy_et")
    _assert_calls(ours, expected, ATOL, "executorch's .pte against PyTorch")


def test_our_multi_method_pte_runs_in_executorch(detector):
    _, _, calls, expected, data = detector
    theirs = _executorch_calls(data, calls)
    for k, (got, want) in enumerate(zip(theirs, expected)):
        assert len(got) == len(want), (k, got, want)
        for a, b in zip(got, want):
            assert torch.allclose(a, b, atol=ATOL), (k, a, b)


def test_loading_a_method_keeps_the_state_the_others_set():
    model = Window()
    x = torch.full((1, 2, 1), 10.0)
    program = Program.load(export(model, (x,), methods={"mean": (), "reset": ()}))
    forward = program.load_method("forward")
    for _ in range(2):
        forward.set_input(0, [10.0, 10.0])
        forward.execute()
    mean = program.load_method("mean")  # loaded after forward ran: sees its state
    mean.execute()
    assert mean.output(0).tolist() == [[6.25, 8.25]], mean.output(0).tolist()  # [2, 3, 10, 10], [6, 7, 10, 10]
    mean.reset_state()  # the shared state, for every method
    forward.set_input(0, [1.0, 1.0])
    forward.execute()
    assert forward.output(0).tolist() == [[[1.0, 2.0, 3.0, 1.0], [5.0, 6.0, 7.0, 1.0]]]


def test_state_and_methods_on_the_board():
    """cortex-m3 (224 KB heap): forward (heap-locked, state in planned memory),
    mean, the reset method and reset_state, each against PyTorch."""
    from tests.conftest import require

    require("cortex-m3")
    model = Window()
    calls = [("forward", (torch.full((1, 2, 1), float(k + 10)),)) for k in range(2)]
    calls += [("mean", ()), ("reset", ()), ("forward", (torch.ones(1, 2, 1),)), ("forward", "reset_state"), ("mean", ())]
    data = export(model, calls[0][1], methods={"mean": (), "reset": ()})
    results = run_calls(data, calls, "cortex-m3")
    _assert_calls(results, reference_outputs(model, calls), ATOL, "cortex-m3")
    steps = [r.stats for r in results if r.stats["method"] == "forward" and r.stats["action"] == "execute"]
    assert all(s["execute_heap_locked"] and s["execute_heap_bytes"] == 0 for s in steps), steps
    reset = results[5].stats
    assert reset["execute_heap_bytes"] == 0 and reset["reset_heap_locked"] is True, reset
    print("cortex-m3 instructions: forward step %d, reset_state %d" % (steps[-1]["execute_instructions"], reset["execute_instructions"]))

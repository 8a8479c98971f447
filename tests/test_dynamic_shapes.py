"""Bounded dynamic shapes (ExecuTorch's DYNAMIC_BOUND): memory planned for
the upper bound; set_input with a smaller shape resizes the tensors that
depend on it and prepares again only the steps whose shapes changed, never
inside execute(); a dim over the bound is InvalidArgument naming it. Both
directions with ExecuTorch 1.5.1 (its .pte on mpy_et, ours in its runtime)."""

import runpy

import pytest
import torch
from torch.export import Dim

from host_tools import export
from host_tools.lowering.lower import UnsupportedOps
from host_tools.targets.calls import reference_outputs, run_calls
from mpy_et import MpyEtError, Program
from mpy_et.errors import INVALID_ARGUMENT
from tests.conftest import ATOL, EXAMPLES, tolerance


@pytest.fixture(scope="module")
def sensor():
    """(model, calls, PyTorch's outputs per call, our .pte, dynamic_shapes) of examples/sensor_window.py."""
    ns = runpy.run_path(EXAMPLES + "/sensor_window.py")
    model, calls = ns["model"], ns["calls"]
    data = export(model, ns["example_inputs"], dynamic_shapes=ns["dynamic_shapes"])
    return model, calls, reference_outputs(model, calls), data, ns


class Peak(torch.nn.Module):
    """Steps that are all allocation-free (relu's native path, byte copies,
    amax): execute() runs with the heap locked at every window length."""

    def forward(self, x):
        return torch.relu(x).unsqueeze(1).amax(dim=-1)


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = torch.nn.Linear(6, 8), torch.nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def _assert_calls(results, expected, atol, what):
    assert len(results) == len(expected), what
    for k, (res, want) in enumerate(zip(results, expected)):
        for got, w in zip(res.outputs, want):
            assert got.shape == w.shape, (what, k, got.shape, w.shape)
            assert torch.allclose(got, w, atol=atol, rtol=atol), (what, k, (got - w).abs().max())


@pytest.mark.parametrize("target", ["cpython", "unix", "wasm", "circuitpython", "cortex-m3"])
def test_sensor_window_at_several_lengths(sensor, target):
    model, calls, expected, data, ns = sensor
    results = run_calls(data, calls, target)
    _assert_calls(results, expected, tolerance(target, model, ns["example_inputs"]), target)
    assert results[0].stats["arena_bytes"] == Program.load(data).load_method().planned_bytes


@pytest.mark.parametrize("target", ["unix", "cortex-m3"])
def test_execute_allocates_nothing_after_a_resize(target):
    calls = [("forward", (torch.randn(1, 3, t),)) for t in (64, 24, 17, 64)]
    data = export(Peak(), calls[0][1], dynamic_shapes=({2: Dim("t", min=16, max=64)},))
    results = run_calls(data, calls, target)
    _assert_calls(results, reference_outputs(Peak(), calls), 0, target)
    for r in results:
        assert r.stats["execute_heap_locked"] is True and r.stats["execute_heap_bytes"] == 0, r.stats


@pytest.mark.parametrize("target", ["cpython", "unix"])
def test_host_tools_run_passes_the_inputs_shapes(sensor, target):
    from host_tools import run

    model, _, _, data, _ = sensor
    x = torch.randn(1, 3, 40)
    res = run(data, [x], target, repeat=1)
    assert torch.allclose(res.outputs[0], model(x), atol=ATOL), res.outputs


def test_only_the_steps_whose_shapes_change_are_prepared_again(sensor):
    _, _, _, data, _ = sensor
    method = Program.load(data).load_method()
    before = list(method._ctxs)
    method.set_input(0, torch.randn(1, 3, 40).tolist())
    after = list(method._ctxs)
    kept = [k for k in range(len(before)) if after[k] is before[k]]
    assert kept == [len(before) - 1], kept  # the final linear layer's shapes do not depend on the window
    method.set_input(0, torch.randn(1, 3, 40).tolist())  # the same shape: nothing prepared again
    assert all(a is b for a, b in zip(method._ctxs, after))
    assert method.input(0).sizes == (1, 3, 40) and method.output(0).sizes == (1, 4)


def test_a_dim_over_the_bound_is_invalid_argument(sensor):
    _, _, _, data, _ = sensor
    method = Program.load(data).load_method()
    with pytest.raises(MpyEtError) as e:
        method.set_input(0, torch.randn(1, 3, 129).tolist())
    assert e.value.code == INVALID_ARGUMENT and "dim 2 is 129" in e.value.message and "bound for it is 128" in e.value.message
    with pytest.raises(MpyEtError) as e:
        method.resize_input(0, (1, 4, 20))
    assert e.value.code == INVALID_ARGUMENT and "dim 1 is 4" in e.value.message
    with pytest.raises(MpyEtError) as e:  # bytes carry no shape: they must fill the current one
        method.set_input(0, bytes(4 * 3 * 20))
    assert e.value.code == INVALID_ARGUMENT
    method.resize_input(0, (1, 3, 20))
    method.set_input(0, bytes(4 * 3 * 20))
    method.execute()


def test_a_shape_a_kernel_refuses_leaves_the_method_as_it_was(sensor):
    model, _, _, data, _ = sensor
    method = Program.load(data).load_method()
    x = torch.randn(1, 3, 30)
    method.set_input(0, x.tolist())
    with pytest.raises(MpyEtError, match="resizing input 0: instruction"):  # 4 samples: the second convolution has no output
        method.resize_input(0, (1, 3, 4))
    assert method.input(0).sizes == (1, 3, 30)
    method.set_input(0, x.tolist())
    method.execute()
    assert torch.allclose(torch.tensor(method.output(0).tolist()), model(x), atol=ATOL)


def test_a_static_input_keeps_its_shape():
    method = Program.load(export(Mlp(), (torch.randn(2, 6),))).load_method()
    with pytest.raises(MpyEtError) as e:
        method.resize_input(0, (1, 6))
    assert e.value.code == INVALID_ARGUMENT and "static shape" in e.value.message


def _executorch_pte(model, inputs, dynamic_shapes):
    from executorch.exir import to_edge

    return to_edge(torch.export.export(model, inputs, dynamic_shapes=dynamic_shapes)).to_executorch().buffer


def test_executorch_pte_with_a_batch_dim_runs_on_mpy_et():
    torch.manual_seed(0)
    model = Mlp().eval()
    data = _executorch_pte(model, (torch.randn(8, 6),), ({0: Dim("b", max=8)},))
    calls = [("forward", (torch.randn(b, 6),)) for b in (2, 8, 1, 5)]
    for target in ("cpython", "unix"):
        _assert_calls(run_calls(data, calls, target), reference_outputs(model, calls), ATOL, target)


class Cnn(torch.nn.Module):
    """flatten of a dynamic batch: ExecuTorch writes aten::sym_size.int and an
    executorch_prim::et_view whose size list refers to its result."""

    def __init__(self):
        super().__init__()
        self.conv, self.fc = torch.nn.Conv2d(1, 2, 3), torch.nn.Linear(2 * 4 * 4, 3)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).flatten(1))


@pytest.mark.parametrize("target", ["cpython", "unix", "wasm", "circuitpython", "cortex-m3"])
def test_executorch_pte_with_sym_size_and_et_view_runs_on_mpy_et(target):
    torch.manual_seed(0)
    model = Cnn().eval()
    data = _executorch_pte(model, (torch.randn(8, 1, 6, 6),), ({0: Dim("b", max=8)},))
    ops = Program.load(data).operator_names("forward")
    assert "aten::sym_size.int" in ops and "executorch_prim::et_view.default" in ops, ops
    calls = [("forward", (torch.randn(b, 1, 6, 6),)) for b in (3, 8, 1, 3)]
    _assert_calls(run_calls(data, calls, target), reference_outputs(model, calls), tolerance(target, model, calls[1][1]), target)


def test_our_batch_cnn_runs_here_and_in_executorch():
    """Ours writes the dynamic flatten as one view_copy (the batch as -1)."""
    from executorch.runtime import Runtime

    torch.manual_seed(0)
    model = Cnn().eval()
    data = export(model, (torch.randn(8, 1, 6, 6),), dynamic_shapes=({0: Dim("b", max=8)},))
    ours = Program.load(data).load_method()
    theirs = Runtime.get().load_program(data).load_method("forward")
    for b in (2, 8, 1):
        x = torch.randn(b, 1, 6, 6)
        ours.set_input(0, x.tolist())
        ours.execute()
        assert torch.allclose(torch.tensor(ours.output(0).tolist()), model(x), atol=ATOL), b
        assert torch.allclose(theirs.execute([x])[0], model(x), atol=ATOL), b


def test_et_view_checks_its_tensors():
    from mpy_et import dtypes
    from mpy_et.tensor import Tensor
    from portable_kernels.op_et_view import et_view_default

    x, out = Tensor(dtypes.FLOAT, (2, 3)), Tensor(dtypes.FLOAT, (5,))
    x.bind(bytearray(24), 0)
    with pytest.raises(MpyEtError, match="does not hold the 6 elements"):
        et_view_default(x, (5,), out)
    with pytest.raises(MpyEtError):
        et_view_default(x, (6,), Tensor(dtypes.INT, (6,)))
    out = Tensor(dtypes.FLOAT, (6,))
    assert et_view_default(x, (6,), out) is None and out.buf is x.buf


def test_executorch_pte_with_a_sequence_dim_runs_on_mpy_et(sensor):
    model, calls, expected, _, ns = sensor
    data = _executorch_pte(model, ns["example_inputs"], ns["dynamic_shapes"])
    _assert_calls(run_calls(data, calls, "unix"), expected, ATOL, "executorch's .pte on unix")


def test_our_pte_runs_in_executorch(sensor):
    from executorch.runtime import Runtime

    model, calls, expected, data, _ = sensor
    method = Runtime.get().load_program(data).load_method("forward")
    for (_, inputs), want in zip(calls, expected):
        got = method.execute(list(inputs))
        assert got[0].shape == want[0].shape and torch.allclose(got[0], want[0], atol=ATOL), (inputs[0].shape, got, want)


def test_our_batch_dim_pte_runs_in_executorch():
    from executorch.runtime import Runtime

    torch.manual_seed(0)
    model = Mlp().eval()
    data = export(model, (torch.randn(8, 6),), dynamic_shapes=({0: Dim("b", max=8)},))
    method = Runtime.get().load_program(data).load_method("forward")
    for b in (3, 8, 1):
        x = torch.randn(b, 6)
        assert torch.allclose(method.execute([x])[0], model(x), atol=ATOL), b


class Upsample(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.interpolate(x, scale_factor=2.0)


class Computed(torch.nn.Module):
    def forward(self, x):
        return x.reshape(x.shape[0] * 2, -1)


class Cat(torch.nn.Module):
    def forward(self, x):
        return torch.cat([x, x * 2.0], dim=2)


def test_export_refuses_what_the_device_cannot_resize():
    with pytest.raises(UnsupportedOps, match=r"aten::cat.out\): its tensors have dynamic shapes"):  # dynamic tensors inside a list
        export(Cat(), (torch.randn(1, 3, 8),), dynamic_shapes=({2: Dim("t", max=8)},))
    x = torch.randn(1, 3, 8, 8)
    with pytest.raises(UnsupportedOps, match="no shape function for it"):
        export(Upsample(), (x,), dynamic_shapes=({2: Dim("h", min=2, max=8)},))
    with pytest.raises(UnsupportedOps, match="no upper bound"):
        export(Mlp(), (torch.randn(4, 6),), dynamic_shapes=({0: Dim("b")},))
    with pytest.raises(UnsupportedOps, match="depends on a dynamic dim"):
        export(Computed(), (torch.randn(4, 6),), dynamic_shapes=({0: Dim("b", max=8)},))
    with pytest.raises(ValueError, match="dynamic_shapes"):
        export(Mlp(), (torch.randn(4, 6),), dynamic_shapes=({0: Dim("b", max=8)},), patch=True)


def test_cli_export_with_a_dynamic_dim_and_run(tmp_path, capsys):
    from host_tools import cli

    pte = str(tmp_path / "sensor.pte")
    assert cli.main(["export", EXAMPLES + "/sensor_window.py", "-o", pte]) == 0  # the file's dynamic_shapes and calls
    assert cli.main(["run", pte, "--target", "unix"]) == 0
    assert "MATCH over 5 calls" in capsys.readouterr().out
    assert cli.main(["export", EXAMPLES + "/sensor_window.py", "-o", pte, "--dynamic", "0:2:16:128"]) == 0  # the option instead
    method = Program.load(open(pte, "rb").read()).load_method()
    assert method.resize_input(0, (1, 3, 20)) is True and method.output(0).sizes == (1, 4)
    assert cli.main(["export", EXAMPLES + "/sensor_window.py", "-o", pte, "--dynamic", "0:7:8"]) == 1
    assert "expected INPUT:DIM:[MIN:]MAX" in capsys.readouterr().err


def test_unbounded_shapes_and_streamed_dynamic_programs_are_refused_at_load(sensor, tmp_path):
    from mpy_et import schema as S
    from mpy_et.errors import NOT_SUPPORTED
    from tests.pte_mutations import Locator, _put

    data = sensor[3]
    loc = Locator(data)
    unbound = _put(data, loc.r.field(loc.planned_tensor(), S.TENSOR_SHAPE_DYNAMISM, ""), "<B", 2)  # DYNAMIC_UNBOUND
    with pytest.raises(MpyEtError) as e:
        Program.load(unbound).load_method()
    assert e.value.code == NOT_SUPPORTED and "unbounded dynamic shapes" in e.value.message
    path = tmp_path / "sensor.pte"
    path.write_bytes(data)
    with pytest.raises(MpyEtError) as e:
        Program.load(str(path), stream=True).load_method()
    assert e.value.code == NOT_SUPPORTED and "streamed" in e.value.message


def test_profiling_follows_a_resize_and_capture_needs_the_bound(sensor):
    from mpy_et.errors import NOT_SUPPORTED
    from mpy_et.event_tracer import EventTracer

    model, _, _, data, _ = sensor
    method = Program.load(data).load_method()
    tracer = EventTracer(4)
    method.set_event_tracer(tracer)
    for t in (128, 40):
        x = torch.randn(1, 3, t)
        method.set_input(0, x.tolist())
        method.execute()
        assert torch.allclose(torch.tensor(method.output(0).tolist()), model(x), atol=ATOL), t
    assert tracer.runs == 2
    with pytest.raises(MpyEtError) as e:  # the host reads captured intermediates at the program's (bound) sizes
        method.set_event_tracer(EventTracer(1, capture=True))
    assert e.value.code == NOT_SUPPORTED and "bound shape" in e.value.message
    method.set_input(0, torch.randn(1, 3, 128).tolist())
    method.set_event_tracer(EventTracer(1, capture=True))
    with pytest.raises(MpyEtError, match="bound shape"):
        method.set_input(0, torch.randn(1, 3, 40).tolist())


class Pool2d(torch.nn.Module):
    """Two dynamic dims (height and width, both even): max pooling stays
    max_pool2d_with_indices (the pass rewriting it into amax takes concrete sizes)."""

    def __init__(self):
        super().__init__()
        self.conv, self.pool = torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.MaxPool2d(2)

    def forward(self, x):
        return self.pool(torch.relu(self.conv(x))).mean(dim=(2, 3))


@pytest.mark.parametrize("target", ["cpython", "unix"])
def test_two_dynamic_dims_through_max_pooling(target):
    from executorch.runtime import Runtime

    torch.manual_seed(0)
    model = Pool2d().eval()
    h = Dim("h", min=4, max=16)
    data = export(model, (torch.randn(1, 1, 32, 32),), dynamic_shapes=({2: 2 * h, 3: 2 * h},))
    assert "aten::max_pool2d_with_indices.out" in Program.load(data).operator_names("forward")
    calls = [("forward", (torch.randn(1, 1, s, s),)) for s in (32, 12, 8)]
    _assert_calls(run_calls(data, calls, target), reference_outputs(model, calls), ATOL, target)
    x = torch.randn(1, 1, 12, 12)
    assert torch.allclose(Runtime.get().load_program(data).load_method("forward").execute([x])[0], model(x), atol=ATOL)


class Specialized(torch.nn.Module):
    def forward(self, x):
        return x + torch.ones(4, 6)


def test_dynamic_shapes_that_end_up_static_are_refused():
    with pytest.raises(UnsupportedOps, match="no tensor of the lowered program has a dynamic dim"):
        export(Specialized(), (torch.randn(4, 6),), dynamic_shapes=({0: Dim.AUTO},))


def _t(*sizes):
    from mpy_et import dtypes
    from mpy_et.tensor import Tensor

    return Tensor(dtypes.FLOAT, tuple(sizes))


_SHAPE_CASES = [
    # (operator, input shapes, the call's values for an input x (outs last: their sizes unused))
    (
        "aten::convolution.out",
        [(1, 3, 21, 13), (2, 3, 9, 13), (1, 3, 6, 13)],
        lambda x: [x, _t(6, 3, 3, 2), None, (2, 1), (1, 0), (2, 1), False, (0, 0), 1, _t()],
    ),
    ("aten::convolution.out", [(2, 3, 9), (1, 3, 20)], lambda x: [x, _t(6, 1, 3), None, (1,), (1,), (1,), False, (0,), 3, _t()]),
    ("aten::avg_pool2d.out", [(1, 3, 9, 13), (1, 3, 10, 13)], lambda x: [x, (3, 2), (2, 2), (1, 0), True, True, None, _t()]),
    ("aten::max_pool2d_with_indices.out", [(1, 3, 9, 13), (1, 3, 10, 7)], lambda x: [x, (3, 3), (), (1, 1), (2, 1), True, _t(), _t()]),
    ("aten::mean.out", [(1, 3, 9, 13)], lambda x: [x, (-1, 1), True, None, _t()]),
    ("aten::sum.IntList_out", [(1, 3, 9, 13)], lambda x: [x, None, False, None, _t()]),
    ("aten::squeeze_copy.dims_out", [(1, 3, 1, 9), (1, 1, 1, 4)], lambda x: [x, (0, 2), _t()]),
    ("aten::unsqueeze_copy.out", [(1, 3, 9)], lambda x: [x, -1, _t()]),
    ("aten::view_copy.out", [(1, 3, 9, 13), (1, 3, 4, 13)], lambda x: [x, (-1, 3), _t()]),
    ("aten::permute_copy.out", [(1, 3, 9, 13)], lambda x: [x, (3, 0, 2, 1), _t()]),
    ("aten::add.out", [(1, 3, 9, 1), (2, 1, 1, 13)], lambda x: [x, _t(1, 13), 1, _t()]),
]


def _torch_shape(name, vals, x):
    import torch.nn.functional as F

    t = torch.zeros(x.sizes)
    v = vals
    if name == "aten::convolution.out":
        w = torch.zeros(v[1].sizes)
        if len(x.sizes) == 3:
            return F.conv1d(t, w, None, v[3], v[4], v[5], v[8]).shape
        return F.conv2d(t, w, None, v[3], v[4], v[5], v[8]).shape
    if name == "aten::avg_pool2d.out":
        return F.avg_pool2d(t, v[1], v[2], v[3], v[4], v[5]).shape
    if name == "aten::max_pool2d_with_indices.out":
        return F.max_pool2d(t, v[1], v[2] or None, v[3], v[4], v[5]).shape
    if name == "aten::mean.out":
        return t.mean(dim=v[1], keepdim=v[2]).shape
    if name == "aten::sum.IntList_out":
        return t.sum().shape
    if name == "aten::squeeze_copy.dims_out":
        return t.squeeze(v[1]).shape
    if name == "aten::unsqueeze_copy.out":
        return t.unsqueeze(v[1]).shape
    if name == "aten::view_copy.out":
        return t.view(v[1]).shape
    if name == "aten::permute_copy.out":
        return t.permute(v[1]).shape
    return (t + torch.zeros(v[1].sizes)).shape


@pytest.mark.parametrize("k", range(len(_SHAPE_CASES)), ids=[c[0] + str(k) for k, c in enumerate(_SHAPE_CASES)])
def test_shape_functions_match_torch(k):
    from mpy_et.dynamic import shape_function

    name, shapes, make = _SHAPE_CASES[k]
    for sizes in shapes:
        x = _t(*sizes)
        vals = make(x)
        got = shape_function(name)(vals)
        assert tuple(got[0]) == tuple(_torch_shape(name, vals, x)), (name, x.sizes, got)


class TwoInputs(torch.nn.Module):
    """Two inputs sharing a dynamic batch dim: resized one after the other."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(6, 3)

    def forward(self, x, gate):
        return torch.relu(self.fc(x)) * gate


def test_inputs_sharing_a_dynamic_dim_are_resized_one_after_the_other():
    torch.manual_seed(0)
    model = TwoInputs().eval()
    b = Dim("b", max=8)
    data = export(model, (torch.randn(8, 6), torch.randn(8, 1)), dynamic_shapes=({0: b}, {0: b}))
    calls = [("forward", (torch.randn(n, 6), torch.randn(n, 1))) for n in (3, 8, 1)]
    for target in ("cpython", "unix"):
        _assert_calls(run_calls(data, calls, target), reference_outputs(model, calls), ATOL, target)
    method = Program.load(data).load_method()
    method.set_input(0, torch.randn(3, 6).tolist())  # gate still has 8 rows: execute() must wait
    with pytest.raises(MpyEtError) as e:
        method.execute()
    assert e.value.code == INVALID_ARGUMENT and "do not fit together" in e.value.message
    x, gate = torch.randn(3, 6), torch.randn(3, 1)
    method.set_input(0, x.tolist())
    method.set_input(1, gate.tolist())
    method.execute()
    assert torch.allclose(torch.tensor(method.output(0).tolist()), model(x, gate), atol=ATOL)

"""Copies that are views (host_tools/planning/views.py): a slice, select or
split whose result is one contiguous, aligned run of its input's bytes is
planned inside the input and its instruction goes; the same .pte gives
PyTorch's results on CPython, unix MicroPython, the Cortex-M3 board and in
ExecuTorch's runtime. Runs that are not contiguous or not aligned, and
mutable state, stay copies."""

import torch

from host_tools import export, inspect, run
from host_tools.analysis.inspect_pte import read_plan


class Gates(torch.nn.Module):
    """A recurrent-cell-like block: one product, its gates sliced, selected and split."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 48)

    def forward(self, x):
        g = self.fc(x)  # [1, 48]
        a = torch.sigmoid(g[:, 0:16])
        b = torch.tanh(g[:, 16:32])
        c, d = torch.split(g[:, 32:48], [8, 8], dim=1)
        row = g[0]  # select on a leading dim of size 1: the whole row
        return a * b + torch.cat([c, d], 1), row.sum(0, keepdim=True)


class NotRuns(torch.nn.Module):
    """Slices that are not one run of bytes (a leading dim of 2, a step of 2)
    or not at an aligned offset (element 3 of float32: byte 12)."""

    def forward(self, x):
        return x[:, 1:3] * 2, x[0:1, ::2] + 1, x[0:1, 3:7] - 1


class StateSlice(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("s", torch.zeros(1, 8))

    def forward(self, x):
        y = self.s[:, 0:4] + x
        self.s.add_(1.0)
        return y


def _ops(pte):
    return [op for op, _, _ in read_plan(pte)[2]]


def test_contiguous_runs_become_views_and_run_everywhere():
    torch.manual_seed(0)
    model = Gates().eval()
    inputs = (torch.randn(1, 8),)
    pte = export(model, inputs)
    ops = _ops(pte)
    for op in ("aten::slice_copy.Tensor_out", "aten::select_copy.int_out", "aten::split_with_sizes_copy.out"):
        assert op not in ops, ops
    info = inspect(pte)
    assert info["lower_bound_bytes"] <= info["planned_bytes"] <= 1.05 * info["lower_bound_bytes"], info
    with torch.no_grad():
        want = model(*inputs)
    for target in ("cpython", "unix", "cortex-m3"):
        got = run(pte, inputs, target, repeat=2).outputs
        for g, w in zip(got, want):
            torch.testing.assert_close(g, w, atol=1e-5, rtol=1e-5)
    from executorch.runtime import Runtime

    got = Runtime.get().load_program(pte).load_method("forward").execute(list(inputs))
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, atol=1e-5, rtol=1e-5)


def test_views_halve_a_recurrent_cells_instructions_and_arena():
    from host_tools.zoo import build

    model, inputs = build("gru")[:2]
    info = inspect(export(model, inputs))
    assert "aten::slice_copy.Tensor_out" not in info["operators"], info["operators"]
    assert info["instructions"] <= 230, info["instructions"]  # 284 with the slices as copies


def test_other_slices_stay_copies():
    model = NotRuns().eval()
    inputs = (torch.randn(2, 8),)
    pte = export(model, inputs)
    assert _ops(pte).count("aten::slice_copy.Tensor_out") == 3  # x[0:1] is a view (twice)
    with torch.no_grad():
        want = model(*inputs)
    for target in ("cpython", "unix"):
        got = run(pte, inputs, target, repeat=1).outputs
        for g, w in zip(got, want):
            torch.testing.assert_close(g, w)


def test_a_slice_of_mutable_state_stays_a_copy():
    # the state changes after the slice is read: a view would see the new value (tests/test_state.py runs such programs)
    pte = export(StateSlice().eval(), (torch.randn(1, 4),))
    assert _ops(pte).count("aten::slice_copy.Tensor_out") == 1

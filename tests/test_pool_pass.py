"""Max pooling whose indices nobody reads runs as view + amax (no int64 index tensor)."""

import torch

import mpy_et
from host_tools import export, run
from host_tools.export import capture, supported_ops
from host_tools.lowering.lower import lower
from host_tools.lowering.pool_pass import max_pool_without_indices
from host_tools.planning import memory_plan


class Pools(torch.nn.Module):
    def forward(self, x):
        a = torch.max_pool2d(torch.relu(x), 2)  # tiles exactly: rewritten
        b = torch.nn.functional.max_pool2d(x, 3, stride=1)  # overlapping windows: kept
        return a, b


def test_rewrite_keeps_torch_semantics():
    x = torch.randn(1, 3, 8, 6)
    x[0, 0, 0, 0] = float("nan")
    ep = capture(Pools(), (x,))
    assert max_pool_without_indices(ep, {"aten::amax.out"}) == 1
    targets = [n.target for n in ep.graph_module.graph.nodes if n.op == "call_function"]
    assert torch.ops.aten.amax.default in targets
    assert torch.ops.aten.max_pool2d_with_indices.default in targets  # the stride-1 pool
    got, want = ep.module()(x), Pools()(x)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, equal_nan=True)
    assert max_pool_without_indices(capture(Pools(), (x,)), set()) == 0  # no amax kernel: untouched


def test_pooling_without_indices_runs_and_plans_smaller(examples):
    assert "aten::amax.out" in supported_ops()
    model, inputs, expected, pte = examples["cnn"]
    ops = mpy_et.Program.load(pte).operator_names()
    # the first pool (26x26, 2x2) tiles and becomes amax; the second (11x11)
    # does not tile (its last row and column are dropped) and keeps its op:
    # slicing first would copy more bytes than the indices take
    assert "aten::amax.out" in ops and "aten::max_pool2d_with_indices.out" in ops
    ours = mpy_et.Program.load(pte).load_method().planned_bytes
    ir = lower(capture(model, inputs), supported_ops())  # the same program without the rewrite
    without = memory_plan.plan(ir)
    assert ours < without, (ours, without)
    for target in ("cpython", "unix"):
        got = run(pte, inputs, target, repeat=1).outputs[0]
        torch.testing.assert_close(got, expected[0], atol=1e-5, rtol=1e-5)
    x = (torch.randn(1, 3, 8, 6),)
    outs = run(export(Pools(), x), x, "unix", repeat=1).outputs
    for g, w in zip(outs, Pools()(*x)):
        torch.testing.assert_close(g, w)

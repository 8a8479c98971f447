"""Channels-last models: our exporter keeps tensors in torch's memory order
(dim order [0, 2, 3, 1]) where their kernels take it, as ExecuTorch's
to_edge().to_executorch() does (host_tools/lowering/dim_orders.py), and the
program runs on every target from channels-last torch tensors.

The model: conv (bias) -> ReLU -> max pool 3/2/1 -> + 1 -> depthwise conv ->
hardtanh -> * 0.5 -> residual 1x1 conv + add (channels-last output) ->
flatten -> linear (a contiguous output)."""

import pytest
import torch
from conftest import TARGETS

from host_tools import run
from host_tools.export import export
from host_tools.targets.dim_orders import io_orders
from mpy_et import Program
from mpy_et.errors import MpyEtError

CL = [0, 2, 3, 1]


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.pool = torch.nn.MaxPool2d(3, 2, 1)
        self.dw = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.pw = torch.nn.Conv2d(8, 8, 1)
        self.fc = torch.nn.Linear(8 * 16, 5)

    def forward(self, x):
        y = self.pool(torch.relu(self.conv(x))) + 1.0
        z = torch.nn.functional.hardtanh(self.dw(y)) * 0.5
        z = z + self.pw(z)
        return z, self.fc(torch.flatten(z, 1))


def _model():
    torch.manual_seed(0)
    return Net().eval().to(memory_format=torch.channels_last)


def _input(seed=1):
    return torch.randn(1, 3, 8, 8, generator=torch.Generator().manual_seed(seed)).to(memory_format=torch.channels_last)


@pytest.fixture(scope="module")
def float_pte():
    return export(_model(), (_input(),))


def _layout(pte):
    """Per instruction (operator, memory orders of its tensors of 2+ elements:
    "CL" or "-"), read with ExecuTorch's own deserializer."""
    from executorch.exir._serialize._program import deserialize_pte_binary

    plan = deserialize_pte_binary(pte).program.execution_plan[0]
    rows = []
    for chain in plan.chains:
        for ins in chain.instructions:
            a = ins.instr_args
            orders = []
            for i in a.args:
                v = plan.values[i].val
                if hasattr(v, "dim_order") and _numel(v.sizes) > 1:
                    orders.append("CL" if list(v.dim_order) == CL and _differs(v.sizes) else "-")
            rows.append((plan.operators[a.op_index].name, " ".join(orders)))
    return rows


def _numel(sizes):
    n = 1
    for s in sizes:
        n *= s
    return n


def _differs(sizes):
    """True if channels-last bytes differ from contiguous ones for these sizes."""
    return len(sizes) == 4 and sizes[1] > 1 and sizes[2] * sizes[3] > 1


# the operators both programs have; a copy to contiguous order is ExecuTorch's
# _clone_dim_order and our clone (the model's flatten)
_SAME = {
    "aten::convolution": "conv",
    "aten::relu": "relu",
    "aten::max_pool2d_with_indices": "max_pool",
    "aten::add": "add",
    "aten::hardtanh": "hardtanh",
    "aten::mul": "mul",
    "aten::addmm": "linear",
    "aten::clone": "to contiguous",
    "dim_order_ops::_clone_dim_order": "to contiguous",
}


def test_dim_orders_match_executorch(float_pte):
    from executorch.exir import to_edge

    model, x = _model(), _input()
    theirs = to_edge(torch.export.export(model, (x,))).to_executorch().buffer
    ours = [(_SAME[op], o) for op, o in _layout(float_pte) if op in _SAME]
    want = [(_SAME[op], o) for op, o in _layout(theirs) if op in _SAME]
    assert ours == want, (ours, want)
    assert ("conv", "CL CL - CL CL") in ours and ("max_pool", "CL CL CL") in ours, ours
    assert io_orders(float_pte) == ([tuple(CL)], [tuple(CL), None])
    assert io_orders(theirs) == io_orders(float_pte)


@pytest.mark.parametrize("target", TARGETS)
def test_channels_last_model_runs_on_every_target(float_pte, target):
    model, x = _model(), _input()
    res = run(float_pte, [x], target, repeat=1)
    want = model(x)
    for got, w in zip(res.outputs, want):
        assert torch.allclose(got, w, atol=1e-4, rtol=1e-4), (target, (got - w).abs().max())
    assert res.outputs[0].is_contiguous(memory_format=torch.channels_last) and not res.outputs[0].is_contiguous()


def test_a_contiguous_input_tensor_gives_the_same_outputs(float_pte):
    x = _input()
    a = run(float_pte, [x], "cpython", repeat=1).outputs
    b = run(float_pte, [x.contiguous()], "cpython", repeat=1).outputs
    assert all(torch.equal(p, q) for p, q in zip(a, b))


@pytest.mark.parametrize("target", ["unix", "circuitpython", "cortex-m3"])
def test_int8_channels_last_model_is_bit_exact_with_the_host(target):
    """int8: the float input is converted to contiguous once (our int8 kernels
    read the contiguous order), then every target equals CPython bit for bit."""
    model = _model()
    cal = [(_input(s),) for s in range(2, 6)]
    pte = export(model, (_input(),), quantize="int8", calibration=cal)
    layout = _layout(pte)
    assert layout[0] == ("dim_order_ops::_to_dim_order_copy", "CL -"), layout[:2]
    x = _input(7)
    want = run(pte, [x], "cpython", repeat=1).outputs
    got = run(pte, [x], target, repeat=1).outputs
    assert all(torch.equal(p, q) for p, q in zip(got, want)), target
    assert (want[1] - model(x)[1]).abs().max() < 0.05


def test_a_kernel_that_cannot_take_the_order_is_converted_before(float_pte):
    """sigmoid reads the contiguous order only: the exporter converts its
    channels-last input first; the device refuses the unconverted form at load."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 1), torch.nn.Sigmoid()).eval().to(memory_format=torch.channels_last)
    x = _input()
    pte = export(model, (x,))
    ops = [op for op, _ in _layout(pte)]
    assert ops == ["aten::convolution", "dim_order_ops::_to_dim_order_copy", "aten::sigmoid"], ops
    assert torch.allclose(run(pte, [x], "cpython", repeat=1).outputs[0], model(x), atol=1e-6)
    from executorch.exir import to_edge

    theirs = to_edge(torch.export.export(model, (x,))).to_executorch().buffer
    with pytest.raises(MpyEtError, match=r"instruction 1 \(aten::sigmoid.out\): a tensor in dim_order \[0, 2, 3, 1\]"):
        Program.load(theirs).load_method("forward")


def test_any_order_convolution_and_max_pool_match_torch():
    """The strided steps (portable_kernels/util/any_order.py) on random
    geometries: stride, padding, dilation, groups, input / weight / output
    each channels-last or not."""
    import random

    from cortex_m_harness import empty, tensor, value

    from portable_kernels.op_convolution import convolution_out
    from portable_kernels.op_max_pool2d_with_indices import max_pool2d_with_indices_out

    rnd = random.Random(4)
    g = torch.Generator().manual_seed(4)
    for _ in range(25):
        groups = rnd.choice([1, 2])
        c, oc = groups * rnd.randrange(1, 4), groups * rnd.randrange(1, 4)
        kh, kw = rnd.randrange(1, 4), rnd.randrange(1, 4)
        st, dl = [rnd.randrange(1, 3), rnd.randrange(1, 3)], [rnd.randrange(1, 3), rnd.randrange(1, 3)]
        pd = [rnd.randrange(0, kh), rnd.randrange(0, kw)]
        x = torch.randn(rnd.randrange(1, 3), c, rnd.randrange(5, 9), rnd.randrange(5, 9), generator=g)
        wt = torch.randn(oc, c // groups, kh, kw, generator=g)
        b = torch.randn(oc, generator=g) if rnd.random() < 0.7 else None
        want = torch.nn.functional.conv2d(x, wt, b, st, pd, dl, groups)
        orders = [rnd.choice([CL, None]) for _ in range(3)]
        orders[0] = orders[0] or CL  # at least the input channels-last
        out = empty(tuple(want.shape), torch.float32, orders[2])
        step = convolution_out(
            tensor(x, orders[0]), tensor(wt, orders[1]), None if b is None else tensor(b), st, pd, dl, False, [0, 0], groups, out
        )
        step[0](step[1])
        assert torch.allclose(value(out, torch.float32), want, atol=1e-5), (orders, st, pd, dl, groups)
        k, s, p = [rnd.randrange(1, 4)] * 2, [rnd.randrange(1, 3)] * 2, [0, 0]
        p = [rnd.randrange(0, k[0] // 2 + 1)] * 2
        want, idx = torch.nn.functional.max_pool2d(x, k, s, p, 1, return_indices=True)
        out, ind = empty(tuple(want.shape), torch.float32, CL), empty(tuple(want.shape), torch.int64, CL)
        step = max_pool2d_with_indices_out(tensor(x, CL), k, s, p, [1, 1], False, out, ind)
        step[0](step[1])
        assert torch.equal(value(out, torch.float32), want) and torch.equal(value(ind, torch.int64), idx), (k, s, p)

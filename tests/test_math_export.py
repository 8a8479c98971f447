"""Export -> run -> equal to PyTorch for models built from the elementwise,
comparison and reduction kernels, through both exporters: ours (with the
lowering paths these ops need: `1 - x` as rsub.Scalar, floor division by a
number as div.Scalar_mode, tensor clamp bounds as clamp.Tensor_out) and
ExecuTorch's (scalars as 0-dim tensors, _to_dim_order_copy casts)."""

import pytest
import torch
import torch.nn.functional as F

from host_tools import export, run
from host_tools.export import capture, supported_ops
from host_tools.lowering.lower import lower


class Mixed(torch.nn.Module):
    """One program holding most of the math kernels (float and int paths)."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(6, 6)

    def forward(self, x, n):
        h = self.lin(x)
        a = F.gelu(h) + F.gelu(h, approximate="tanh") + F.silu(h) + F.hardswish(h) + F.hardsigmoid(h)
        a = a + F.leaky_relu(h, 0.1) + F.elu(h) + F.selu(h) + F.mish(h) + F.softplus(h)
        b = torch.exp(-h.abs()) + torch.log1p(h.abs()) + torch.sqrt(h.abs()) + torch.rsqrt(h.abs() + 1) + torch.reciprocal(h.abs() + 1)
        c = torch.where(h > 0, h.pow(2), 1 - h) + torch.clamp(h, h * 0 - 0.5, h * 0 + 0.5) + torch.maximum(h, -h)
        d = torch.div(h, 0.3, rounding_mode="floor") + torch.trunc(h * 3) + torch.round(h * 2) + torch.sign(h) + h % 0.7
        e = h.var(1, keepdim=True) + h.std(1, keepdim=True) + h.amax(1, keepdim=True) - h.amin(0) + torch.logsumexp(h, 1, keepdim=True)
        f = ((h > 0.1) & (h < 0.9) | (h == 0)).float() + (~(h >= 0)).float() * 2
        k = (n * 3 - 7) // 2 + n % 3 + torch.abs(n) - (2 - n) + (n > 0).sum(1, keepdim=True)
        return a + b + c + d + e + f, k, h.argmax(1), torch.max(h, 0)[1], (h > 10).any(1)


def _inputs():
    g = torch.Generator().manual_seed(3)
    return torch.randn(4, 6, generator=g) * 2, torch.randint(-20, 20, (4, 5), generator=g, dtype=torch.int32)


def _check(outputs, want, what):
    assert len(outputs) == len(want), what
    for got, w in zip(outputs, want):
        got = torch.as_tensor(got)
        assert got.dtype == w.dtype and got.shape == w.shape, (what, got.dtype, got.shape, w.dtype, w.shape)
        if w.dtype.is_floating_point:
            torch.testing.assert_close(got, w, atol=1e-4, rtol=1e-4, msg=lambda m: "%s: %s" % (what, m))
        else:
            assert torch.equal(got, w), (what, got, w)


def test_lowering_uses_the_scalar_and_tensor_overloads():
    ep = capture(Mixed(), _inputs())
    names = {i.op for i in lower(ep, supported_ops()).instructions}
    for op in ("rsub.Scalar_out", "div.Scalar_mode_out", "clamp.Tensor_out", "remainder.Scalar_out", "var.correction_out", "max.dim_max"):
        assert "aten::" + op in names, (op, sorted(names))


@pytest.mark.parametrize("target", ["cpython", "unix"])
def test_mixed_model_matches_pytorch(target):
    model, inputs = Mixed().eval(), _inputs()
    want = model(*inputs)
    _check(run(export(model, inputs), inputs, target, repeat=1).outputs, want, target)


def test_executorch_export_runs_on_mpy_et():
    pytest.importorskip("executorch")
    from executorch.exir import to_edge

    model, inputs = Mixed().eval(), _inputs()
    pte = to_edge(torch.export.export(model, inputs)).to_executorch().buffer
    _check(run(pte, inputs, "cpython", repeat=1).outputs, model(*inputs), "ExecuTorch's .pte")


def _tensor(t):
    from host_tools.lowering.ir import tensor_bytes
    from mpy_et.tensor import Tensor
    from tests.kernel_cases import CODES

    x = Tensor(CODES[t.dtype], tuple(t.shape))
    x.bind(bytearray(tensor_bytes(t)), 0)
    return x


# op -> (torch function, extra arguments of the out variant, input)
_IN_PLACE = {
    "aten::silu.out": (F.silu, [], None),
    "aten::hardswish.out": (F.hardswish, [], None),
    "aten::hardsigmoid.out": (F.hardsigmoid, [], None),
    "aten::gelu.out": (F.gelu, ["none"], None),
    "aten::elu.out": (F.elu, [1.0, 1, 1], None),
    "aten::leaky_relu.out": (lambda t: F.leaky_relu(t, 0.01), [0.01], None),
    "aten::exp.out": (torch.exp, [], None),
    "aten::neg.out": (torch.neg, [], torch.tensor([5, -(2**31), 2**31 - 1], dtype=torch.int32)),
    "aten::abs.out": (torch.abs, [], torch.tensor([5, -(2**31), -7], dtype=torch.int32)),
    "aten::rsub.Scalar_out": (lambda t: 3 - t, [3, 1], torch.tensor([-(2**31), 4, 2**31 - 1], dtype=torch.int32)),
}


@pytest.mark.parametrize("op", sorted(_IN_PLACE))
def test_kernel_runs_in_place(op):
    """The planner may give an elementwise op's out the buffer of its input
    (host_tools/planning/lifetimes.py INPLACE_OPS): the kernel must read each
    element before writing it, integer wrap-around included."""
    from mpy_et.kernels import resolve

    fn, extra, t = _IN_PLACE[op]
    t = torch.tensor([-4.0, -3.0, -1.5, -0.1, 0.0, 0.7, 2.5, 3.0, 9.0]) if t is None else t
    x = _tensor(t)
    step, ctx = resolve([op], {})[op](x, *extra, x)
    step(ctx)
    got = torch.tensor([x.data[i] for i in range(x.numel)], dtype=t.dtype)
    torch.testing.assert_close(got, fn(t), atol=1e-6, rtol=1e-6)

"""Inference batch norm both ways, end to end against PyTorch: folded into
the layer before it at export (the default), and run as the
_native_batch_norm_legit_no_training kernel (fold_batch_norm=False, and
wherever folding does not apply)."""

import pytest
import torch
import torch.nn as nn

from host_tools import export, run
from host_tools.export import capture, supported_ops
from host_tools.lowering.fold_batch_norm import fold_batch_norm
from host_tools.lowering.lower import lower

BN_OP = "aten::_native_batch_norm_legit_no_training.out"


def _randomize(model):
    """Non-trivial statistics and affine parameters (fresh ones are 0/1)."""
    g = torch.Generator().manual_seed(7)
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=g))
            m.running_var.copy_(torch.rand(m.running_var.shape, generator=g) * 1.5 + 0.5)
            if m.affine:
                m.weight.data.copy_(torch.randn(m.weight.shape, generator=g))
                m.bias.data.copy_(torch.randn(m.bias.shape, generator=g))
    return model.eval()


class IssueModel(nn.Module):
    """The issue's model: Conv2d -> BatchNorm2d -> ReLU -> AdaptiveAvgPool2d -> Linear."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.features(x)), 1))


class Layers(nn.Module):
    """Every foldable pattern (depthwise, transposed with groups, no-affine,
    Linear with and without bias, Conv1d) and two that are not: a batch norm
    on the input, and one whose convolution output is also used elsewhere."""

    def __init__(self):
        super().__init__()
        self.bn_in = nn.BatchNorm2d(3)
        self.conv = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn_conv = nn.BatchNorm2d(8)
        self.dw = nn.Conv2d(8, 8, 3, groups=8)
        self.bn_dw = nn.BatchNorm2d(8)
        self.up = nn.ConvTranspose2d(8, 4, 2, stride=2, groups=2)
        self.bn_up = nn.BatchNorm2d(4, affine=False)
        self.side = nn.Conv2d(4, 4, 1)
        self.bn_side = nn.BatchNorm2d(4)
        self.fc = nn.Linear(16, 6)
        self.bn_fc = nn.BatchNorm1d(6)
        self.fc2 = nn.Linear(6, 5, bias=False)
        self.bn_fc2 = nn.BatchNorm1d(5)
        self.c1 = nn.Conv1d(4, 4, 3)
        self.bn_c1 = nn.BatchNorm1d(4)

    def forward(self, x):
        y = self.bn_up(self.up(self.bn_dw(self.dw(torch.relu(self.bn_conv(self.conv(self.bn_in(x))))))))
        s = self.side(y)
        y = self.bn_side(s) + s  # the convolution's output has a second user: not folded
        z = torch.flatten(nn.functional.adaptive_avg_pool2d(y, 2), 1)
        a = self.bn_fc2(self.fc2(torch.relu(self.bn_fc(self.fc(z)))))
        return a, self.bn_c1(self.c1(y.flatten(2)))


CASES = {"issue": (IssueModel, (1, 3, 8, 8), 0), "layers": (Layers, (2, 3, 6, 6), 2)}


def _ops(model, inputs, fold):
    ep = capture(model, inputs)
    if fold:
        fold_batch_norm(ep)
    return [ins.op for ins in lower(ep, supported_ops()).instructions]


@pytest.mark.parametrize("name", sorted(CASES))
def test_folding_removes_the_batch_norm_kernels(name):
    cls, shape, kept = CASES[name]
    model = _randomize(cls())
    inputs = (torch.randn(shape),)
    unfolded = _ops(model, inputs, False)
    folded = _ops(model, inputs, True)
    total = sum(isinstance(m, nn.modules.batchnorm._BatchNorm) for m in model.modules())
    assert unfolded.count(BN_OP) == total
    assert folded.count(BN_OP) == kept, folded
    assert len(unfolded) - len(folded) == total - kept  # nothing else added


@pytest.mark.parametrize("target", ["cpython", "unix"])
@pytest.mark.parametrize("fold", [True, False], ids=["folded", "kernel"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_pytorch(name, fold, target):
    cls, shape, _ = CASES[name]
    model = _randomize(cls())
    inputs = (torch.randn(shape, generator=torch.Generator().manual_seed(3)),)
    with torch.no_grad():
        want = model(*inputs)
    want = list(want) if isinstance(want, tuple) else [want]
    got = run(export(model, inputs, fold_batch_norm=fold), inputs, target, repeat=1).outputs
    assert len(got) == len(want)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, atol=1e-5, rtol=1e-5)


def test_saved_statistics_in_use_are_not_folded():
    class SavedStats(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 2, 1)
            self.register_buffer("mean", torch.randn(2))
            self.register_buffer("var", torch.rand(2) + 0.5)

        def forward(self, x):
            out = torch.ops.aten._native_batch_norm_legit_no_training(self.conv(x), None, None, self.mean, self.var, 0.1, 1e-5)
            return out[0] + out[1].sum()

    ep = capture(SavedStats().eval(), (torch.randn(1, 2, 3, 3),))
    assert fold_batch_norm(ep) == 0

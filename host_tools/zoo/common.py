"""Shared by the zoo modules: deterministic weights and batch-norm statistics."""

import torch
from torch import nn


def finish(model, inputs, seed):
    """Seed every parameter, give batch norms non-trivial running statistics
    (so folding them is really tested), put the model in eval mode."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            bound = 1.0 / max(1, p[0].numel()) ** 0.5 if p.dim() > 1 else 0.1
            p.copy_((torch.rand(p.shape, generator=g) * 2 - 1) * bound * (1.7 if p.dim() > 1 else 1.0))
        for m in model.modules():
            if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
                m.running_mean.copy_(torch.randn(m.num_features, generator=g) * 0.1)
                m.running_var.copy_(torch.rand(m.num_features, generator=g) * 0.5 + 0.75)
                m.weight.copy_(torch.rand(m.num_features, generator=g) * 0.5 + 0.75)
    x = tuple(torch.randn(s, generator=g) for s in inputs)
    return model.eval(), x


def conv_bn_relu(cin, cout, k, stride=1, groups=1, relu6=False, dims=2, padding=None, bias=False):
    """Convolution (padding k // 2 unless given) + batch norm + ReLU or ReLU6."""
    if padding is None:
        padding = k // 2 if isinstance(k, int) else tuple(d // 2 for d in k)
    conv = (nn.Conv2d if dims == 2 else nn.Conv1d)(cin, cout, k, stride, padding, groups=groups, bias=bias)
    bn = (nn.BatchNorm2d if dims == 2 else nn.BatchNorm1d)(cout)
    return nn.Sequential(conv, bn, nn.ReLU6() if relu6 else nn.ReLU())

"""Float32 convolutions on Thumb-2 boards (portable_kernels/native/f32_conv_thumb.py:
f32_mm_thumb's soft-float products over im2col tiles, pointwise ones
straight over the input): one program of every geometry kind (padding,
stride, dilation, an asymmetric kernel, no bias, depthwise, grouped, 1x1
with and without stride, 1-D, layers whose im2col block takes several
tiles of rows or of one row's columns, two images) on the emulated Cortex-M3 and Cortex-M7 must agree with
PyTorch within float32 rounding, at the products' instruction counts (not
the bytecode's ~1,000 per MAC); an inf in the input makes the step fall
back to the bytecode convolution, built then, with torch's inf/NaN."""

import pytest
import torch

from host_tools import export, run
from host_tools.analysis.macs import count_macs


class Convs(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.b = torch.nn.Conv2d(3, 5, (5, 2), stride=(2, 1), padding=(2, 1), dilation=(1, 2), bias=False)
        self.c = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.d = torch.nn.Conv2d(8, 6, 1)
        self.e = torch.nn.Conv2d(8, 4, 1, stride=2)
        self.f = torch.nn.Conv2d(3, 16, 3, padding=1)  # 27 terms x 8 columns: tiles of 4 rows, 2 last
        self.g = torch.nn.Conv1d(3, 4, 5, padding=2, stride=2)
        self.i = torch.nn.Conv1d(24, 5, 9, padding=4)  # 216 terms x 300 columns: tiles of 4 columns
        self.h = torch.nn.Conv2d(4, 6, 3, padding=1, groups=2)

    def forward(self, x, big, seq, long):
        y = self.a(x)
        return y, self.b(x), self.c(y), self.d(y), self.e(y), self.f(big), self.g(seq), self.h(y[:, :4]), self.i(long)


@pytest.fixture(scope="module")
def program():
    torch.manual_seed(0)
    model = Convs().eval()
    inputs = (torch.randn(2, 3, 9, 7), torch.randn(1, 3, 10, 8), torch.randn(1, 3, 40), torch.randn(1, 24, 301))
    return model, inputs, export(model, inputs)


@pytest.mark.parametrize("target", ["cortex-m3", "cortex-m7"])
def test_convolutions_agree_with_torch_at_product_speed(program, target):
    model, inputs, pte = program
    res = run(pte, inputs, target, repeat=1)
    want = model(*inputs)
    for got, ref in zip(res.outputs, want):
        assert torch.allclose(got, ref.detach(), rtol=1e-5, atol=1e-5), (got - ref).abs().max()
    per_mac = res.stats["execute_instructions"] / count_macs(model, inputs)
    assert per_mac < 100, per_mac  # the bytecode convolution: ~1,000


def test_an_inf_falls_back_to_the_bytecode_step(program):
    model, inputs, pte = program
    x = inputs[0].clone()
    x[0, 1, 4, 3] = float("inf")
    inputs = (x,) + inputs[1:]
    res = run(pte, inputs, "cortex-m3", repeat=1)
    want = model(*inputs)
    for got, ref in zip(res.outputs, want):
        ref = ref.detach()
        assert torch.equal(torch.isnan(got), torch.isnan(ref))
        assert torch.allclose(got.nan_to_num(), ref.nan_to_num(), rtol=1e-5, atol=1e-5)

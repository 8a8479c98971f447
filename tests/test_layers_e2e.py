"""Layers real models use, end to end: export -> run on CPython and unix
MicroPython -> equal to PyTorch; our .pte in ExecuTorch's runtime; and
ExecuTorch's own .pte of the same model on mpy_et."""

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from host_tools import export, run


class Decoder(nn.Module):
    """Convolutional decoder: transposed convolution, both upsamplings, padding, adaptive pooling."""

    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1)
        self.near = nn.Upsample(scale_factor=1.5, mode="nearest")
        self.bil = nn.Upsample(size=(7, 9), mode="bilinear", align_corners=True)
        self.conv = nn.Conv1d(3, 2, 3, stride=2)

    def forward(self, x):
        y = self.bil(self.near(torch.relu(self.up(x))))
        y = F.pad(y, (1, 0, 0, 2), value=0.5)
        return F.adaptive_avg_pool2d(y, (3, 2)), self.conv(y.flatten(2))


class Recurrent(nn.Module):
    """GRU (gates split with split_with_sizes_copy) and a bidirectional LSTM (flip)."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(3, 6, batch_first=True)
        self.lstm = nn.LSTM(6, 4, batch_first=True, bidirectional=True)

    def forward(self, x):
        return self.lstm(self.gru(x)[0])[0]


class Tokens(nn.Module):
    """Embedding, layer norm, gather-style indexing, stacking."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(12, 8)
        self.norm = nn.LayerNorm(8)
        self.register_buffer("pick", torch.tensor([2, 0]))
        self.register_buffer("lanes", torch.randint(0, 8, (2, 5, 3), generator=torch.Generator().manual_seed(5)))

    def forward(self, ids):
        h = self.norm(self.emb(ids))
        first = torch.index_select(h, 1, self.pick)
        return torch.stack([first, h[:, self.pick]], 1), torch.gather(h, 2, self.lanes)


MODELS = {
    "decoder": (Decoder, lambda g: (torch.randn(1, 4, 3, 4, generator=g),)),
    "recurrent": (Recurrent, lambda g: (torch.randn(2, 3, 3, generator=g),)),
    "tokens": (Tokens, lambda g: (torch.randint(0, 12, (2, 5), generator=g),)),
}


@pytest.fixture(scope="module")
def programs():
    """name -> (inputs, expected outputs, our .pte)."""
    out = {}
    for name, (cls, make) in MODELS.items():
        torch.manual_seed(0)
        model = cls().eval()
        inputs = make(torch.Generator().manual_seed(1))
        with torch.no_grad():
            want = model(*inputs)
        want = list(want) if isinstance(want, tuple) else [want]
        out[name] = (model, inputs, want, export(model, inputs))
    return out


def _close(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("target", ["cpython", "unix"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_matches_pytorch(programs, name, target):
    _, inputs, want, pte = programs[name]
    _close(run(pte, inputs, target, repeat=1).outputs, want)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_our_pte_runs_in_executorch(programs, name):
    from executorch.runtime import Runtime

    _, inputs, want, pte = programs[name]
    _close(Runtime.get().load_program(pte).load_method("forward").execute(list(inputs)), want)


@pytest.mark.parametrize("name", ["decoder", "recurrent"])
def test_executorch_pte_runs_on_mpy_et(programs, name):
    from executorch.exir import to_edge

    model, inputs, want, _ = programs[name]
    et = to_edge(torch.export.export(model, inputs)).to_executorch().buffer
    _close(run(et, inputs, "cpython", repeat=1).outputs, want)

"""Control flow: a wake-word style gate (torch.cond).

A cheap linear score runs on every call; the larger classifier runs only
when the score says so, the other branch returns a fixed "nothing heard"
answer. ExecuTorch's emitter writes both branches into the one instruction
chain with JumpFalseCall / MoveCall; so does `mpy-et export`.

    mpy-et export host_tools/examples/gate.py -o gate.pte
    mpy-et run gate.pte --target cortex-m3
"""

import torch
from torch import nn


class Gate(nn.Module):
    def __init__(self, features=40, classes=4):
        super().__init__()
        self.score = nn.Linear(features, 1)
        self.big = nn.Sequential(nn.Linear(features, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, classes))

    def forward(self, x):
        def heard(x):
            return self.big(x).softmax(-1)

        def silence(x):
            return torch.zeros_like(x[:, :4]) + 0.25

        return torch.cond(self.score(x).sum() > 0, heard, silence, (x,))


torch.manual_seed(0)
model = Gate().eval()
example_inputs = (torch.randn(1, 40),)

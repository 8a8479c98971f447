"""Several methods in one program: `forward`, `reset` and `score`.

A running detector: forward(x) scores a feature vector and accumulates the
evidence in a buffer; score(x) scores without accumulating (the same
weights: the program stores them once); reset() clears the evidence. The
three methods share the buffer (one state, at one place in every method's
planned memory), as ExecuTorch exports them from a dict of exported
programs with share_mutable_buffers.

    mpy-et export host_tools/examples/multi_method.py -o detector.pte
    mpy-et run detector.pte --target unix    # the calls below, each against PyTorch
"""

import torch
from torch import nn


class Detector(nn.Module):
    def __init__(self, features=16, classes=3):
        super().__init__()
        self.fc1 = nn.Linear(features, 24)
        self.fc2 = nn.Linear(24, classes)
        self.register_buffer("evidence", torch.zeros(1, classes))

    def score(self, x):
        return torch.softmax(self.fc2(torch.relu(self.fc1(x))), dim=1)

    def forward(self, x):
        self.evidence.add_(self.score(x))
        return self.evidence.clone()

    def reset(self):
        self.evidence.zero_()


torch.manual_seed(0)
model = Detector().eval()
example_inputs = (torch.randn(1, 16),)
methods = {"score": example_inputs, "reset": ()}  # exported next to forward, into the same program
_x = [torch.randn(1, 16) for _ in range(3)]
calls = [
    ("forward", (_x[0],)),
    ("forward", (_x[1],)),
    ("score", (_x[2],)),
    ("reset", ()),
    ("forward", (_x[2],)),
]

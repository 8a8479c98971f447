"""Streaming state: a 3-axis IMU classifier fed one sample per call.

The model keeps the last 32 samples (a sliding window), the call count and
an exponential moving average of its logits in buffers that forward updates
in place; the exported program keeps them in planned memory across
`execute()` calls (Method.reset_state() restores their initial values).

    mpy-et export host_tools/examples/streaming.py -o streaming.pte
    mpy-et run streaming.pte --target cortex-m3    # the calls below, each against PyTorch
"""

import torch
from torch import nn


class StreamingIMU(nn.Module):
    def __init__(self, window=32, classes=4):
        super().__init__()
        self.conv = nn.Conv1d(3, 8, kernel_size=5, stride=2)
        self.fc = nn.Linear(8, classes)
        self.register_buffer("window", torch.zeros(1, 3, window))
        self.register_buffer("smoothed", torch.zeros(1, classes))
        self.register_buffer("count", torch.zeros(1, dtype=torch.int32))

    def forward(self, sample):  # sample: [1, 3, 1], one reading per axis
        self.window.copy_(torch.cat([self.window[:, :, 1:], sample], dim=2))
        h = torch.relu(self.conv(self.window)).mean(dim=2)
        logits = self.fc(h)
        self.smoothed.mul_(0.75).add_(logits * 0.25)
        self.count.add_(1)
        return self.smoothed.clone(), self.count.clone()


torch.manual_seed(0)
model = StreamingIMU().eval()
example_inputs = (torch.randn(1, 3, 1),)
# `mpy-et export` records these calls and PyTorch's outputs after each; `mpy-et run` makes them in order
calls = [("forward", (torch.randn(1, 3, 1),)) for _ in range(4)] + [("forward", "reset_state"), ("forward", example_inputs)]

"""Bounded dynamic shapes: a 3-axis sensor classifier over a window of any
length from 16 to 128 samples.

Two 1-D convolutions, average pooling and a mean over time, then a linear
layer: the window length is a dynamic dim (torch.export.Dim, max=128). The
program plans memory for 128 samples; Method.set_input with a shorter window
resizes every tensor that depends on it and prepares again only those steps
(mpy_et/dynamic.py), before execute().

    mpy-et export host_tools/examples/sensor_window.py -o sensor_window.pte
    mpy-et run sensor_window.pte --target cortex-m3    # the calls below, each against PyTorch
"""

import torch
from torch import nn
from torch.export import Dim


class SensorWindow(nn.Module):
    def __init__(self, classes=4):
        super().__init__()
        self.conv1 = nn.Conv1d(3, 8, kernel_size=5, padding=2)
        self.pool = nn.AvgPool1d(2)
        self.conv2 = nn.Conv1d(8, 16, kernel_size=3)
        self.fc = nn.Linear(16, classes)

    def forward(self, window):  # window: [1, 3, T], 16 <= T <= 128
        h = self.pool(torch.relu(self.conv1(window)))
        h = torch.relu(self.conv2(h))
        return self.fc(h.mean(dim=2))


torch.manual_seed(0)
model = SensorWindow().eval()
example_inputs = (torch.randn(1, 3, 128),)
dynamic_shapes = ({2: Dim("samples", min=16, max=128)},)
# `mpy-et export` records these calls and PyTorch's outputs; `mpy-et run` makes them in order on one loaded program
calls = [("forward", (torch.randn(1, 3, t),)) for t in (128, 40, 17, 40, 96)]

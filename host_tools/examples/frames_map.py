"""Control flow: one small network over each frame of a window
(torch.ops.higher_order.map).

A sensor delivers a window of 8 frames of 16 features; the same frame
encoder runs on each frame (map's loop), then a classifier reads all the
encodings. ExecuTorch's emitter writes map as a loop in the one instruction
chain (select_copy at a counter, the body, et_copy_index, and a backward
JumpFalseCall); so does `mpy-et export`, and the device runs the body once
per frame: its tensors are planned once, not once per frame.

    mpy-et export host_tools/examples/frames_map.py -o frames_map.pte
    mpy-et run frames_map.pte --target cortex-m3
"""

import torch
from torch import nn
from torch._higher_order_ops.map import map as map_frames


class FrameEncoder(nn.Module):
    def __init__(self, frames=8, features=16, hidden=12, classes=4):
        super().__init__()
        self.encode = nn.Sequential(nn.Linear(features, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.Tanh())
        self.classify = nn.Linear(frames * hidden, classes)

    def forward(self, window):
        codes = map_frames(lambda frame: self.encode(frame), window[0])
        return self.classify(codes.reshape(1, -1)).softmax(-1)


torch.manual_seed(0)
model = FrameEncoder().eval()
example_inputs = (torch.randn(1, 8, 16),)

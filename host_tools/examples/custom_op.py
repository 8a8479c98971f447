"""A custom operator: defined with torch.library (with its .out variant, as
ExecuTorch requires), used by the model, run on the device by a kernel the
user supplies (custom_op_kernels.py, our kernel convention).

    mpy-et export host_tools/examples/custom_op.py -o custom.pte    # the file names its kernels: `kernels`
    mpy-et run custom.pte --target unix --kernels host_tools/examples/custom_op_kernels.py
    mpy-et build custom.pte --target rp2040 --kernels host_tools/examples/custom_op_kernels.py -o dist
"""

import os

import torch
from torch import nn

if not hasattr(torch.ops.my_ops, "soft_clip"):  # defined once per process (model files may run twice)
    _lib = torch.library.Library("my_ops", "FRAGMENT")
    _lib.define("soft_clip(Tensor x, float limit) -> Tensor")
    _lib.define("soft_clip.out(Tensor x, float limit, *, Tensor(a!) out) -> Tensor(a!)")

    def _soft_clip(x, limit):
        return limit * x / (x.abs() + limit)  # a smooth clip to (-limit, limit)

    def _soft_clip_out(x, limit, *, out):
        return out.copy_(_soft_clip(x, limit))

    _lib.impl("soft_clip", _soft_clip, "CompositeExplicitAutograd")
    _lib.impl("soft_clip.out", _soft_clip_out, "CompositeExplicitAutograd")


class SoftClipNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        h = torch.ops.my_ops.soft_clip(self.fc1(x), 0.5)
        return self.fc2(h)


torch.manual_seed(0)
model = SoftClipNet().eval()
example_inputs = (torch.randn(2, 8) * 3,)
kernels = os.path.join(os.path.dirname(os.path.abspath(__file__)), "custom_op_kernels.py")  # the device kernels

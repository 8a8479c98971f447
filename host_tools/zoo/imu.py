"""1-D CNN over 3-axis accelerometer windows (128 samples): activity recognition, 6 classes."""

import torch
from torch import nn

from host_tools.zoo.common import conv_bn_relu, finish


class IMUCNN(nn.Module):
    def __init__(self, classes=6):
        super().__init__()
        self.block1 = conv_bn_relu(3, 16, 5, dims=1)
        self.block2 = conv_bn_relu(16, 32, 5, dims=1)
        self.block3 = conv_bn_relu(32, 32, 3, dims=1)
        self.fc = nn.Linear(32, classes)

    def forward(self, x):
        x = torch.max_pool1d(self.block1(x), 2)
        x = torch.max_pool1d(self.block2(x), 2)
        return self.fc(self.block3(x).mean(dim=2))


def build(name):
    return finish(IMUCNN(), [(1, 3, 128)], seed=7)

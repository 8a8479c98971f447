"""ResNet-8 for CIFAR-10, as MLPerf Tiny's reference (image_classification/
keras_model.py, resnet_v1_eembc with 16 filters, the size of the v0.5-v1.x
results: 78 K parameters, 12.5 M MACs): 32x32x3 input, three residual stacks of
16, 32 and 64 channels (a 1x1 stride-2 convolution on the skip path where the
shape changes), 8x8 average pool, 10 classes, softmax."""

import torch
from torch import nn

from host_tools.zoo.common import finish


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1)
        self.bn2 = nn.BatchNorm2d(cout)
        self.skip = nn.Conv2d(cin, cout, 1, stride) if stride != 1 or cin != cout else None

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + (x if self.skip is None else self.skip(x)))


class ResNet8(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1), nn.BatchNorm2d(16), nn.ReLU())
        self.stacks = nn.Sequential(Block(16, 16, 1), Block(16, 32, 2), Block(32, 64, 2))
        self.pool = nn.AvgPool2d(8)
        self.fc = nn.Linear(64, classes)

    def forward(self, x):
        return self.fc(self.pool(self.stacks(self.stem(x))).flatten(1)).softmax(dim=1)


def build(name):
    return finish(ResNet8(), [(1, 3, 32, 32)], seed=3)

"""A MobileNetV2 inverted-residual block: 1x1 expansion (x6) + ReLU6, 3x3
depthwise + ReLU6, 1x1 linear projection, residual connection."""

from torch import nn

from host_tools.zoo.common import conv_bn_relu, finish


class InvertedResidual(nn.Module):
    def __init__(self, c=16, expand=6):
        super().__init__()
        hidden = c * expand
        self.expand = conv_bn_relu(c, hidden, 1, relu6=True)
        self.depthwise = conv_bn_relu(hidden, hidden, 3, groups=hidden, relu6=True)
        self.project = nn.Sequential(nn.Conv2d(hidden, c, 1, bias=False), nn.BatchNorm2d(c))

    def forward(self, x):
        return x + self.project(self.depthwise(self.expand(x)))


def build(name):
    return finish(InvertedResidual(), [(1, 16, 24, 24)], seed=11)

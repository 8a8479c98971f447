"""MobileNetV1 with width multiplier 0.25 for visual wake words, as MLPerf Tiny's
reference (visual_wake_words/vww_model.py): 96x96x3 input, a stride-2 convolution
with 8 filters, 13 depthwise-separable blocks (16 ... 256 channels), 3x3 average
pool, 2 classes, softmax. Every convolution has a bias (Keras's default) and is
followed by batch norm and ReLU.

Stride-2 layers use padding 1: the same maps and MACs as Keras's "same" padding,
which pads an even input only below and right (the window grid here starts one
pixel up and left).
"""

from torch import nn

from host_tools.zoo.common import conv_bn_relu, finish

# (output channels at width 1.0, stride) of the 13 depthwise-separable blocks
_BLOCKS = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 5 + [(1024, 2), (1024, 1)]


class MobileNetV1(nn.Module):
    def __init__(self, alpha=0.25, classes=2):
        super().__init__()
        c = int(32 * alpha)
        layers = [conv_bn_relu(3, c, 3, stride=2, bias=True)]
        for out, stride in _BLOCKS:
            out = int(out * alpha)
            layers += [conv_bn_relu(c, c, 3, stride=stride, groups=c, bias=True), conv_bn_relu(c, out, 1, bias=True)]
            c = out
        self.features = nn.Sequential(*layers)
        self.pool = nn.AvgPool2d(3)
        self.fc = nn.Linear(c, classes)

    def forward(self, x):
        return self.fc(self.pool(self.features(x)).flatten(1)).softmax(dim=1)


def build(name):
    return finish(MobileNetV1(), [(1, 3, 96, 96)], seed=2)

"""DS-CNN for keyword spotting, as MLPerf Tiny's reference (64 filters):
conv 10x4 stride 2, four depthwise-separable blocks, average pool, 12 classes."""

from torch import nn

from host_tools.zoo.common import conv_bn_relu, finish


class DSCNN(nn.Module):
    def __init__(self, filters=64, classes=12):
        super().__init__()
        layers = [conv_bn_relu(1, filters, (10, 4), stride=2)]
        for _ in range(4):
            layers += [conv_bn_relu(filters, filters, 3, groups=filters), conv_bn_relu(filters, filters, 1)]
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(filters, classes)

    def forward(self, x):
        return self.fc(self.pool(self.features(x)).flatten(1))


def build(name):
    return finish(DSCNN(), [(1, 1, 49, 10)], seed=1)

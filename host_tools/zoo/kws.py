"""DS-CNN for keyword spotting, as MLPerf Tiny's reference (training/keyword_spotting/
keras_model.py, "ds_cnn"): 49x10 MFCC input, conv 10x4 stride 2 with 64 filters,
four depthwise-separable blocks, average pool over the 25x5 map, 12 classes, softmax.

Keras pads "same" asymmetrically (49 rows: 4 above, 5 below); padding (5, 1) gives
the same 25x5 maps and MAC count with PyTorch's symmetric padding (the stride-2
window grid starts one row higher). Convolutions keep their biases, as Keras's
default; the dropout layers of the reference are no-ops at inference and left out.
"""

from torch import nn

from host_tools.zoo.common import conv_bn_relu, finish


class DSCNN(nn.Module):
    def __init__(self, filters=64, classes=12):
        super().__init__()
        layers = [conv_bn_relu(1, filters, (10, 4), stride=2, padding=(5, 1), bias=True)]
        for _ in range(4):
            layers += [
                conv_bn_relu(filters, filters, 3, groups=filters, bias=True),
                conv_bn_relu(filters, filters, 1, bias=True),
            ]
        self.features = nn.Sequential(*layers)
        self.pool = nn.AvgPool2d((25, 5))
        self.fc = nn.Linear(filters, classes)

    def forward(self, x):
        return self.fc(self.pool(self.features(x)).flatten(1)).softmax(dim=1)


def build(name):
    return finish(DSCNN(), [(1, 1, 49, 10)], seed=1)

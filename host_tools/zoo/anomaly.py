"""FC autoencoder for anomaly detection, as MLPerf Tiny's reference
(anomaly_detection/keras_model.py, ToyADMOS, 5 frames x 128 mels): 640 inputs,
four 128-wide layers, an 8-wide bottleneck, four 128-wide layers, 640 outputs;
every hidden layer is Linear + BatchNorm + ReLU."""

from torch import nn

from host_tools.zoo.common import finish


def _dense(cin, cout):
    return [nn.Linear(cin, cout), nn.BatchNorm1d(cout), nn.ReLU()]


class FCAutoencoder(nn.Module):
    def __init__(self):
        super().__init__()
        widths = [640, 128, 128, 128, 128, 8, 128, 128, 128, 128]
        layers = []
        for a, b in zip(widths, widths[1:]):
            layers += _dense(a, b)
        self.net = nn.Sequential(*layers, nn.Linear(128, 640))

    def forward(self, x):
        return self.net(x)


def build(name):
    return finish(FCAutoencoder(), [(1, 640)], seed=4)

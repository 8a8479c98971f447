"""A small convolutional autoencoder: strided convolutions down to 7x7, nearest
upsampling and convolutions back to 1x28x28, sigmoid output."""

from torch import nn

from host_tools.zoo.common import finish


class ConvAutoencoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(1, 8, 3, 2, 1), nn.ReLU(), nn.Conv2d(8, 16, 3, 2, 1), nn.ReLU())
        self.decoder = nn.Sequential(
            nn.Upsample(scale_factor=2, mode="nearest"),
            nn.Conv2d(16, 8, 3, 1, 1),
            nn.ReLU(),
            nn.Upsample(scale_factor=2, mode="nearest"),
            nn.Conv2d(8, 1, 3, 1, 1),
            nn.Sigmoid(),
        )

    def forward(self, x):
        return self.decoder(self.encoder(x))


def build(name):
    return finish(ConvAutoencoder(), [(1, 1, 28, 28)], seed=12)

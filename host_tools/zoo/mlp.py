"""A multilayer perceptron: 64 -> 128 -> 64 -> 10 with ReLU."""

from torch import nn

from host_tools.zoo.common import finish


def build(name):
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))
    return finish(model, [(1, 64)], seed=6)

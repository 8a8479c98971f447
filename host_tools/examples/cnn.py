"""Small MNIST-style CNN: 1x1x28x28 -> conv8 -> pool -> conv16 -> pool -> fc10."""

import torch
from torch import nn


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3)
        self.conv2 = nn.Conv2d(8, 16, 3)
        self.fc = nn.Linear(16 * 5 * 5, 10)

    def forward(self, x):
        x = torch.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = torch.max_pool2d(torch.relu(self.conv2(x)), 2)
        return torch.log_softmax(self.fc(torch.flatten(x, 1)), dim=1)


torch.manual_seed(0)
model = SmallCNN().eval()
example_inputs = (torch.randn(1, 1, 28, 28),)

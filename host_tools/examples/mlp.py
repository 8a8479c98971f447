"""Two-input MLP: linear, tanh, broadcast mul and add, sigmoid, relu."""

import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 8)
        self.scale = nn.Parameter(torch.randn(32))

    def forward(self, x, gate):
        h = torch.tanh(self.fc1(x)) * self.scale + gate
        return torch.sigmoid(self.fc2(torch.relu(h))) * 2.0


torch.manual_seed(0)
model = MLP().eval()
example_inputs = (torch.randn(4, 16), torch.randn(4, 1))

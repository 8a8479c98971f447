"""A long program: N one-element float ops (mul, add, relu in turn).

Used to measure how loading scales with program length (benchmarks/bench_load.py,
tests/test_load_heap.py). As a model file it defines a 1,000-instruction chain.
"""

import torch


class Chain(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n

    def forward(self, x):
        for i in range(self.n):
            x = x * 1.5 if i % 3 == 0 else (x + 0.25 if i % 3 == 1 else torch.relu(x))
        return x


model = Chain(1000).eval()
example_inputs = (torch.tensor([0.5]),)

"""torch.nn.GRU and torch.nn.LSTM sequence classifiers: 20 steps of 8 features,
hidden size 32, a linear layer on the last step's output.

No workaround: torch.export (torch 2.13) keeps aten.gru.input / aten.lstm.input
and the core ATen decomposition unrolls them over the 20 steps into addmm,
sigmoid, tanh, mul, add/sub and split/select/cat (about 270 kernel calls), all
portable operators; ExecuTorch's exporter emits the same kind of program."""

from torch import nn

from host_tools.zoo.common import finish


class Recurrent(nn.Module):
    def __init__(self, kind, features=8, hidden=32, classes=4):
        super().__init__()
        self.rnn = (nn.GRU if kind == "gru" else nn.LSTM)(features, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, classes)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.fc(out[:, -1])


def build(name):
    return finish(Recurrent(name), [(1, 20, 8)], seed=9 if name == "gru" else 10)

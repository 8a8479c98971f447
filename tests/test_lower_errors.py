"""Unsupported operators are reported at export with the user's module
(path and class from nn_module_stack) and source line, all in one message."""

import inspect

import pytest
import torch
import torch.nn as nn

from host_tools import export
from host_tools.export import capture, supported_ops
from host_tools.lowering.lower import UnsupportedOps, lower


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU())
        self.head = nn.Linear(4, 2)

    def forward(self, x):
        y = self.features(x)
        return self.head(y.mean((2, 3)))


def _line(fn, text):
    """'file.py:N' of the line of fn holding text."""
    lines, first = inspect.getsourcelines(fn)
    n = first + next(i for i, s in enumerate(lines) if text in s)
    return "%s:%d" % (inspect.getsourcefile(fn), n)


def test_module_path_class_and_source_line():
    ep = capture(Net(), (torch.randn(1, 3, 6, 6),))
    missing = {"aten::_native_batch_norm_legit_no_training.out", "aten::relu.out", "aten::addmm.out"}
    with pytest.raises(UnsupportedOps) as e:
        lower(ep, supported_ops() - missing)
    msg = str(e.value)
    assert msg.startswith("3 unsupported operator(s)"), msg
    where = _line(Net.forward, "self.features(x)")
    head = _line(Net.forward, "self.head(")
    lines = msg.splitlines()[1:]
    assert len(lines) == 3, msg
    assert lines[0].startswith("  aten::_native_batch_norm_legit_no_training.out in features.1 (BatchNorm2d), " + where), msg
    assert lines[1].startswith("  aten::relu.out in features.2 (ReLU), " + where), msg
    assert lines[2].startswith("  aten::addmm.out in head (Linear), " + head), msg
    assert "torch/nn/modules" not in msg


def test_unsupported_op_through_export_names_the_top_level_line():
    class Warp(nn.Module):
        def forward(self, x, grid):
            return nn.functional.grid_sample(x, grid, align_corners=False)

    inputs = (torch.randn(1, 1, 4, 4), torch.rand(1, 2, 2, 2) * 2 - 1)
    with pytest.raises(
        UnsupportedOps, match=r"aten::grid_sampler_2d\.out in .*test_lower_errors\.py:\d+ in forward: return nn\.functional\.grid_sample"
    ):
        export(Warp(), inputs)


def test_kernel_load_check_reported_at_export_with_the_users_line():
    class IntMatmul(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("w", torch.ones(4, 3, dtype=torch.int32))

        def forward(self, x):
            return torch.mm(x, self.w)

    with pytest.raises(UnsupportedOps) as e:
        export(IntMatmul(), (torch.ones(2, 4, dtype=torch.int32),))
    msg = str(e.value)
    assert "instruction 0 (aten::mm.out)" in msg and "int32" in msg, msg
    assert msg.splitlines()[-1].startswith("  in " + _line(IntMatmul.forward, "torch.mm(x, self.w)")), msg


def test_unsupported_dtype_names_the_module():
    class Half(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            return self.fc(x).half()

    with pytest.raises(
        UnsupportedOps, match=r"dtype torch.float16.*\n  in .*test_lower_errors\.py:\d+ in forward: return self\.fc\(x\)\.half\(\)"
    ):
        export(Half(), (torch.randn(1, 4),))

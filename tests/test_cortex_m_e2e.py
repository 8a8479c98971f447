"""ExecuTorch's own Cortex-M flow end to end: its ds_cnn (MLPerf Tiny keyword
spotting: convolutions, depthwise, pad, avg pool, linear) and deep_autoencoder
(linear layers) through CortexMQuantizer -> to_edge -> CortexMPassManager ->
to_executorch, run by mpy_et on every target against ExecuTorch's reference
(the transformed edge program run in Python). All four MLPerf Tiny models
(with mobilenet_v1_025 and resnet8, channels-last inputs):
benchmarks/bench_cortex_m.py."""

import pytest
import torch

pytest.importorskip("tosa_serializer")  # ExecuTorch's Cortex-M passes import its Arm backend

import cortex_m_flow  # noqa: E402

from host_tools import run  # noqa: E402
from host_tools.targets import TargetError  # noqa: E402

_PROGRAMS = {}


class Layers(torch.nn.Module):
    """The operators the MLPerf models above do not use: max pool, add, transposed
    convolution; channels-last input (3 channels) and output."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.dw = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.pool = torch.nn.MaxPool2d(2)
        self.c2 = torch.nn.Conv2d(8, 4, 1)
        self.avg = torch.nn.AvgPool2d(2)
        self.up = torch.nn.ConvTranspose2d(4, 4, 2, stride=2)

    def forward(self, x):
        y = self.pool(torch.relu(self.dw(torch.relu(self.c1(x)))))
        z = self.c2(y)
        return self.up(self.avg(z + z))


def program(name):
    """(pte, input, ExecuTorch's reference output), exported once per session."""
    if name not in _PROGRAMS:
        torch.manual_seed(0)
        model, shape = (Layers().eval(), (1, 3, 8, 8)) if name == "layers" else cortex_m_flow.build(name)
        pte, transformed = cortex_m_flow.export(model, shape)
        x = cortex_m_flow.sample(shape, torch.Generator().manual_seed(1))
        _PROGRAMS[name] = pte, x, cortex_m_flow.reference(transformed, x)
    return _PROGRAMS[name]


@pytest.fixture(scope="module")
def ds_cnn():
    return program("ds_cnn")


def test_layers_take_and_give_channels_last_tensors():
    from host_tools.deploy.selective import program_operators
    from host_tools.targets.dim_orders import io_orders

    pte = program("layers")[0]
    assert io_orders(pte) == ([(0, 2, 3, 1)], [(0, 2, 3, 1)])
    ops = set(program_operators(pte))
    for op in ("quantized_max_pool2d", "quantized_add", "quantized_transpose_conv2d"):
        assert "cortex_m::%s.out" % op in ops, ops


def test_ds_cnn_uses_the_cortex_m_operators_and_dim_orders(ds_cnn):
    from host_tools.deploy.selective import program_operators
    from host_tools.targets.dim_orders import io_orders

    ops = set(program_operators(ds_cnn[0]))
    for op in ("quantized_conv2d", "quantized_depthwise_conv2d", "quantized_avg_pool2d", "quantized_linear", "pad"):
        assert "cortex_m::%s.out" % op in ops, ops
    assert "dim_order_ops::_clone_dim_order.out" in ops
    assert io_orders(ds_cnn[0]) == ([None], [None])  # [1, 1, 49, 10] in [0, 2, 1, 3]: the same bytes


@pytest.mark.parametrize("name", ["ds_cnn", "deep_autoencoder", "layers"])
@pytest.mark.parametrize("target", ["cpython", "unix", "wasm", "circuitpython", "cortex-m3", "cortex-m7"])
def test_runs_bit_for_bit_with_the_heap_locked(name, target):
    pte, x, ref = program(name)
    try:
        res = run(pte, [x], target=target, repeat=1, heap_lock=target != "cpython")
    except TargetError as e:
        if "not found" in str(e) or "not installed" in str(e):
            pytest.skip(str(e))
        raise
    out = res.outputs[0]
    assert out.stride() == ref.stride(), (out.stride(), ref.stride())  # the program's dim order (channels-last for layers)
    # bit for bit where floats are float32 or double; CircuitPython's 30-bit floats hold the scales
    # less exactly (measured 0 to 1.5e-8; one output quantum is ~1e-3)
    assert (out - ref).abs().max().item() <= (1e-6 if target == "circuitpython" else 0.0), (target, out, ref)
    if target != "cpython":
        assert res.stats["execute_heap_locked"] and res.stats["execute_heap_bytes"] == 0, res.stats
    if target.startswith("cortex"):
        assert res.stats["program_heap_bytes"] < 4096, res.stats  # weights read in place (ROMFS), not copied


def test_executorch_channels_last_conv_relu_runs():
    """ExecuTorch's own program for a channels-last conv + ReLU: the convolution
    reads and writes [0, 2, 3, 1], the ReLU walks the shared order."""
    from executorch.exir import to_edge

    torch.manual_seed(3)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU()).eval().to(memory_format=torch.channels_last)
    x = torch.rand(1, 3, 5, 5).to(memory_format=torch.channels_last)
    prog = to_edge(torch.export.export(model, (x,))).to_executorch().buffer
    got = run(prog, [x], "cpython").outputs[0]
    assert torch.allclose(got, model(x), atol=1e-5), (got - model(x)).abs().max()


def test_a_kernel_without_dim_order_support_is_refused_at_load_naming_the_instruction():
    from mpy_et import Program
    from mpy_et.errors import MpyEtError

    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 1), torch.nn.Sigmoid()).eval()
    x = torch.rand(1, 3, 5, 5).to(memory_format=torch.channels_last)
    from executorch.exir import to_edge

    prog = to_edge(torch.export.export(model, (x,))).to_executorch().buffer
    with pytest.raises(MpyEtError, match=r"instruction \d+ \(aten::sigmoid.out\): a tensor in dim_order \[0, 2, 3, 1\]"):
        Program.load(prog).load_method("forward")

"""Models larger than RAM: constants streamed from the file (Program.load(path, stream=True))."""

import pytest
import torch

import mpy_et
from host_tools import export, run
from host_tools.lowering.ir import tensor_bytes
from host_tools.targets import TargetError


def deep_mlp(layers=6, width=128):
    torch.manual_seed(3)
    mods = []
    for _ in range(layers):
        mods += [torch.nn.Linear(width, width), torch.nn.ReLU()]
    return torch.nn.Sequential(*mods, torch.nn.Linear(width, 4)).eval()


def test_streamed_constants_match_in_ram_on_cpython(tmp_path):
    model, x = deep_mlp(3, 32), (torch.randn(2, 32),)
    path = str(tmp_path / "m.pte")
    export(model, x, path)
    outs = []
    for stream in (False, True):
        m = mpy_et.Program.load(path, stream=stream).load_method()
        m.set_input(0, tensor_bytes(x[0]))
        m.execute()
        outs.append(m.output(0).tolist())
        assert (m.stream_scratch_bytes > 0) == stream
    assert outs[0] == outs[1]
    with pytest.raises(mpy_et.MpyEtError, match="takes a path"):
        mpy_et.Program.load(open(path, "rb").read(), stream=True)


def test_weights_larger_than_the_heap_run_streamed_on_micropython(tmp_path):
    """~400 KB of weights, a 304 KB heap: in RAM the program cannot even be
    read; streamed, it runs and gives the in-RAM (CPython) outputs. The heap
    leaves the 66 KB scratch a free run with some margin (on 2026-11-28 it
    needed 280 KB: 256 KB sufficed until the runtime grew, and each growth
    moved where the free runs fall)."""
    model, x = deep_mlp(), (torch.randn(1, 128),)
    path = str(tmp_path / "big.pte")
    pte = export(model, x, path)
    constants = mpy_et.Program.load(pte).constant_size
    assert constants > 304 * 1024 * 1.25  # well above the heap
    want = run(path, x, "cpython", repeat=1).outputs[0]
    with pytest.raises(TargetError, match="MemoryAllocationFailed|MemoryError"):
        run(path, x, "unix", repeat=1, heap_bytes=304 * 1024)
    res = run(path, x, "unix", repeat=1, heap_bytes=304 * 1024, stream=True)
    assert torch.equal(res.outputs[0], want)
    assert 0 < res.stats["stream_scratch_bytes"] < 80 * 1024

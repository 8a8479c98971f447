"""The emulated Cortex-M3 board: deployment as on a real board, weights read
in place from ROMFS, models that do not fit, deterministic instruction
counts, and the board always powered off."""

import pytest
import torch
from conftest import require

from host_tools import export, run
from host_tools.targets import TargetError


@pytest.fixture(autouse=True)
def _board():
    require("cortex-m3")


class Project(torch.nn.Module):
    """(1, k) @ (k, 8): the weight grows with k, the activations barely do."""

    def __init__(self, k):
        super().__init__()
        self.fc = torch.nn.Linear(k, 8, bias=False)
        torch.manual_seed(k)
        torch.nn.init.normal_(self.fc.weight)

    def forward(self, x):
        return torch.relu(self.fc(x))


def test_constants_are_read_in_place_from_romfs():
    """Two models that differ in weight size (2 KB vs 256 KB, more than the small
    board's whole heap): the heap load_method keeps, less the planned arena,
    is the same, so the weights were never copied into RAM."""
    kept = {}
    for k in (64, 8192):
        model = Project(k).eval()
        x = (torch.randn(1, k),)
        res = run(export(model, x), x, "cortex-m3", repeat=1, reload=True)
        torch.testing.assert_close(res.outputs[0], model(*x), atol=1e-3, rtol=1e-4)
        kept[k] = res.stats["load_method_heap_bytes"] - res.stats["arena_bytes"]
    assert abs(kept[8192] - kept[64]) < 1024, kept


def test_plain_py_files_over_mpremote_mount(examples):
    """The simplest deployment: .py sources served by `mpremote mount`."""
    _, inputs, expected, pte = examples["mlp"]
    res = run(pte, inputs, "cortex-m3", repeat=1, deploy="mount")
    torch.testing.assert_close(res.outputs[0], expected[0], atol=1e-5, rtol=1e-5)
    # The board compiled the sources itself: the first load held more heap than from ROMFS.
    romfs = run(pte, inputs, "cortex-m3", repeat=1)
    assert res.stats["first_load_method_heap_bytes"] > romfs.stats["first_load_method_heap_bytes"], (res.stats, romfs.stats)


def test_model_too_large_for_the_board_fails_at_load_naming_the_bytes():
    class Big(torch.nn.Module):
        def forward(self, x):
            return torch.relu(x).repeat(1, 8, 1) + 1.0

    x = (torch.randn(1, 8, 1024),)  # 32 KB in, 256 KB tensors planned: more than the ~220 KB heap
    pte = export(Big(), x)
    with pytest.raises(TargetError, match=r"MemoryAllocationFailed \(0x21\).*cannot allocate \d+ bytes.*need \d+ bytes"):
        run(pte, x, "cortex-m3", repeat=1)


def test_instruction_counts_are_deterministic(examples):
    _, inputs, _, pte = examples["mlp"]
    a = run(pte, inputs, "cortex-m3", repeat=1).stats
    b = run(pte, inputs, "cortex-m3", repeat=1).stats
    assert a["execute_instructions"] > 0
    assert abs(a["execute_instructions"] - b["execute_instructions"]) <= 2000, (a, b)


def test_board_is_powered_off_on_timeout_and_error():
    from host_tools.targets.board import Board

    with pytest.raises(TargetError, match="no result after 2 s"):
        with Board("cortex-m3") as board:
            board.exec("while True:\n    pass\n", timeout=2)
    assert board.proc.poll() is not None
    with pytest.raises(TargetError, match="ZeroDivisionError"):
        with Board("cortex-m3") as board:
            board.exec("1 / 0\n", timeout=10)
    assert board.proc.poll() is not None


def test_only_the_kernels_a_program_needs_are_deployed(examples):
    from host_tools.deploy.selective import device_modules, program_operators

    ops = program_operators(examples["cnn"][3])
    assert "aten::convolution.out" in ops
    modules = device_modules(ops)["portable_kernels"]
    assert "op_convolution" in modules and "util.window" in modules  # window: imported by the pooling kernel
    assert "op_div" not in modules and "op_cat" not in modules
    # An operator without a kernel is left to the device to report, by name.
    assert device_modules(["aten::nonexistent.out"])["portable_kernels"] == ["registry"]

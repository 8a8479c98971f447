"""Constants are never copied: the heap a loaded method keeps does not grow with weight size."""

import pytest
import torch

from host_tools import export, run


def test_kept_heap_is_independent_of_weight_bytes():
    """Two models that differ only in weight size (10 KB vs 1 MB): the heap
    load_method keeps, arena excluded, differs by less than 1 KB."""
    kept = []
    for width in (40, 4096):  # weights 40x64 (10 KB) vs 4096x64 (1 MB)
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(width, 64), torch.nn.ReLU()).eval()
        x = (torch.randn(1, width),)
        pte = export(model, x)
        s = run(pte, x, "unix", repeat=1, heap_bytes=8 * 1024 * 1024, reload=True).stats
        kept.append((len(pte), s["load_method_heap_bytes"] - s["arena_bytes"]))
    (small_pte, small), (big_pte, big) = kept
    assert big_pte - small_pte > 1_000_000
    assert abs(big - small) < 1024, kept


def _int8_linear(width):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(width, 128), torch.nn.ReLU()).eval()
    x = (torch.randn(1, width),)
    return export(model, x, quantize="int8", calibration=[(torch.randn(1, width),) for _ in range(4)], quantized_io=True), x


@pytest.mark.parametrize("target", ["unix", "cortex-m3"])
def test_int8_weights_stay_where_they_lie(target):
    """int8 weights are read in the layout the export wrote (host_tools/quantize/pack.py),
    not copied: 10 KB vs 1 MB of int8 weights (Linear(80 -> 128) vs Linear(8192 -> 128)).
    The heap a second load_method keeps, arena excluded, differs by less than 1 KB,
    on the unix port and on the 224 KB board, which could not hold a copy of the
    weights (measured: unix 1,840 vs 1,824 B, cortex-m3 1,328 vs 1,328 B)."""
    kept = []
    for width in (80, 8192):
        pte, x = _int8_linear(width)
        s = run(pte, x, target, repeat=1, reload=True, **({"heap_bytes": 8 * 1024 * 1024} if target == "unix" else {})).stats
        kept.append((len(pte), s["load_method_heap_bytes"] - s["arena_bytes"]))
    (small_pte, small), (big_pte, big) = kept
    assert big_pte - small_pte > 1_000_000
    assert abs(big - small) < 1024, kept

"""Constants are never copied: the heap a loaded method keeps does not grow with weight size."""

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

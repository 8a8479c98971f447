"""host_tools.run(..., free_at_load=N): a ballast leaves only N heap bytes for the load,
so a benchmark can ask whether a program fits a board with that much heap left
(benchmarks/bench_load_peak.py: issue 18's load-time garbage)."""

import pytest
import torch

from host_tools import export, run
from host_tools.targets import TargetError


def test_free_at_load_leaves_that_much_heap_on_the_board():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU(), torch.nn.Linear(32, 10)).eval()
    x = (torch.randn(1, 64),)
    pte = export(model, x, quantize="int8", calibration=[(torch.randn(1, 64),) for _ in range(4)])
    s = run(pte, x, "cortex-m3", repeat=1).stats
    kept = s["program_heap_bytes"] + s["first_load_method_heap_bytes"]
    roomy = run(pte, x, "cortex-m3", repeat=1, free_at_load=kept + 16384).stats
    assert roomy["ballast_bytes"] > 100_000 and roomy["heap_free_before_load"] < kept + 16384 + 1024, roomy
    with pytest.raises(TargetError, match="MemoryAllocationFailed"):
        run(pte, x, "cortex-m3", repeat=1, free_at_load=kept // 4)

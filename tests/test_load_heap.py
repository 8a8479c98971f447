"""Loading fits a small heap: a 1,000-instruction program in 264 KB on unix
MicroPython, deployed as a user deploys it (`mpy-et build --target unix-x64`:
compiled .mpy, only the kernels the program uses)."""

import torch

from host_tools import export
from host_tools.deploy.build import build
from host_tools.examples.chain import Chain
from host_tools.targets.run import run_dist_unix


def test_thousand_instructions_load_in_264k(tmp_path):
    # 256 KB until the 2026-11-25 merges (FPU/DSP flags, float_loops, delegates) added
    # 1-2 KB of imports: it loads in 258 KB now; the margin is small.
    model, x = Chain(1000), (torch.tensor([0.5]),)
    path = str(tmp_path / "chain.pte")
    export(model, x, path)
    dist = tmp_path / "dist"
    build([path], "unix-x64", str(dist), measure=False)
    res = run_dist_unix(dist, path, x, heap_bytes=264 * 1024, reload=True)
    s = res.stats
    assert s["load_method_alloc_bytes"] / 1000 <= 2048, s["load_method_alloc_bytes"]
    assert (s["load_method_heap_bytes"] - s["arena_bytes"]) / 1000 <= 200, s["load_method_heap_bytes"]
    torch.testing.assert_close(res.outputs[0], model(*x), rtol=1e-5, atol=0)

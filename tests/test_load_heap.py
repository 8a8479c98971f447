"""Loading fits a small heap: a 1,000-instruction program in 256 KB on unix
MicroPython, deployed as a user deploys it (`mpy-et build --target unix-x64`:
compiled .mpy, only the kernels the program uses)."""

import os
import subprocess

import torch

from host_tools import export
from host_tools.build import build
from host_tools.run import job_files, parse_result
from host_tools.targets import micropython_binary


class Chain(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n

    def forward(self, x):
        for i in range(self.n):
            x = x * 1.5 if i % 3 == 0 else (x + 0.25 if i % 3 == 1 else torch.relu(x))
        return x


def run_dist_unix(dist, pte, inputs, tmp_path, heap_kb):
    files, script = job_files(pte, inputs, repeat=1)
    data = tmp_path / "data"
    data.mkdir()
    for name, content in files.items():
        (data / name).write_bytes(content if isinstance(content, (bytes, bytearray)) else open(content, "rb").read())
    (data / "main.py").write_text("DATA_DIR = %r\n" % str(data) + script)
    env = dict(os.environ, MICROPYPATH=str(dist))  # the dist only
    proc = subprocess.run(
        [micropython_binary(), "-X", "heapsize=%dk" % heap_kb, str(data / "main.py")], env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return parse_result(proc.stdout, "unix")


def test_thousand_instructions_load_in_256k(tmp_path):
    model, x = Chain(1000), (torch.tensor([0.5]),)
    path = str(tmp_path / "chain.pte")
    export(model, x, path)
    dist = tmp_path / "dist"
    build([path], "unix-x64", str(dist), measure=False)
    res = run_dist_unix(dist, path, x, tmp_path, 256)
    s = res.stats
    assert s["load_method_alloc_bytes"] / 1000 <= 2048, s["load_method_alloc_bytes"]
    assert (s["load_method_heap_bytes"] - s["arena_bytes"]) / 1000 <= 200, s["load_method_heap_bytes"]
    torch.testing.assert_close(res.outputs[0], model(*x), rtol=1e-5, atol=0)

"""What control flow costs on a board: a map loop's steps per iteration,
and the frames example (host_tools/examples/frames_map.py: one encoder over
8 frames) as a map against the same encoder run once on all 8 frames as a
batch (no loop), measured in the same run.

    python benchmarks/bench_control_flow.py [--target cortex-m3]

Emulated boards count instructions (QEMU -icount; 1 us = 1,000
instructions, so a per-iteration figure is a difference over 64 iterations).
"""

import argparse
import os
import runpy

import torch
from torch._higher_order_ops.map import map as tmap

from host_tools import export, run

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "host_tools", "examples", "frames_map.py")


class Rows(torch.nn.Module):
    """map with a body of one 16-byte copy: select, clone, et_copy_index and the counter's steps."""

    def forward(self, xs):
        return tmap(lambda x: x.clone(), xs)


class Batched(torch.nn.Module):
    """frames_map's model without the loop: the encoder on the [8, 16] window at once."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, window):
        return self.m.classify(self.m.encode(window[0]).reshape(1, -1)).softmax(-1)


def _execute(pte, inputs, target):
    stats = run(pte, inputs, target, repeat=3).stats
    return stats.get("execute_instructions") or stats["execute_us"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--target", default="cortex-m3")
    args = p.parse_args()
    counts = {}
    for dtype in (torch.float32, torch.int8):
        for n in (1, 65):
            xs = torch.arange(n * 4).reshape(n, 4).to(dtype)
            counts[dtype, n] = _execute(export(Rows(), (xs,)), (xs,), args.target)
    print("%s: map with a one-copy body (4 elements a row)" % args.target)
    print("| dtype | 1 row | 65 rows | per iteration |")
    print("|---|---:|---:|---:|")
    for dtype in (torch.float32, torch.int8):
        a, b = counts[dtype, 1], counts[dtype, 65]
        print("| %s | %d | %d | %.0f |" % (str(dtype).replace("torch.", ""), a, b, (b - a) / 64))
    ns = runpy.run_path(EXAMPLE)
    model, inputs = ns["model"], ns["example_inputs"]
    looped = _execute(export(model, inputs), inputs, args.target)
    batched = _execute(export(Batched(model).eval(), inputs), inputs, args.target)
    print("frames_map (8 frames): map %d, batched %d, map / batched %.2f" % (looped, batched, looped / batched))


if __name__ == "__main__":
    main()

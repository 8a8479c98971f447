"""How load_method scales with program length, on unix MicroPython.

A chain of N one-element float ops (mul, add, relu in turn): for N = 10,
100 and 1000, the bytes load_method allocates in all (short-lived garbage
and call frames included) and the heap it keeps (arena excluded), per
instruction; and whether the program loads in a 256 KB heap. Prints figures;
not a pass/fail test.

    python benchmarks/bench_load.py [N ...]
"""

import sys
import time

import torch

from host_tools import export, run
from host_tools.targets import TargetError


class Chain(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n

    def forward(self, x):
        for i in range(self.n):
            x = x * 1.5 if i % 3 == 0 else (x + 0.25 if i % 3 == 1 else torch.relu(x))
        return x


def main(sizes):
    print("%6s %10s %14s %14s %18s %12s" % ("N", "export s", "alloc B/instr", "kept B/instr", "loads in 256 KB", "load us"))
    for n in sizes:
        x = (torch.randn(1),)
        t = time.time()
        pte = export(Chain(n), x)
        export_s = time.time() - t
        s = run(pte, x, "unix", repeat=1).stats
        alloc = s["load_method_alloc_bytes"] / n
        kept = (s["load_method_heap_bytes"] - s["arena_bytes"]) / n
        try:
            run(pte, x, "unix", repeat=1, heap_bytes=256 * 1024)
            small = "yes"
        except TargetError as e:
            small = "no: " + str(e).strip().splitlines()[-1][:60]
        print("%6d %10.1f %14.0f %14.0f %18s %12d" % (n, export_s, alloc, kept, small, s["method_load_us"]))


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10, 100, 1000])

"""How load_method scales with program length, on unix MicroPython.

A chain of N one-element float ops (mul, add, relu in turn), deployed as a
user deploys it (`mpy-et build --target unix-x64`: .mpy, only the kernels it
uses). For N = 10, 100 and 1000: the bytes load_method allocates in all
(short-lived garbage and heap-allocated call frames included) and the heap it
keeps (arena excluded), per instruction; the .pte size; and whether program
and method load in a 256 KB heap. Prints figures; not a pass/fail test.

    python benchmarks/bench_load.py [N ...]
"""

import os
import sys
import tempfile
import time

import torch

from host_tools import export
from host_tools.deploy.build import build
from host_tools.examples.chain import Chain
from host_tools.targets import TargetError
from host_tools.targets.run import run_dist_unix


def main(sizes):
    print("%6s %10s %9s %14s %14s %22s %10s" % ("N", "export s", ".pte B", "alloc B/instr", "kept B/instr", "loads in 256 KB", "load us"))
    for n in sizes:
        x = (torch.randn(1),)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "chain.pte")
            t = time.time()
            pte = export(Chain(n), x, path)
            export_s = time.time() - t
            dist = os.path.join(tmp, "dist")
            build([path], "unix-x64", dist, measure=False)
            s = run_dist_unix(dist, path, x, reload=True).stats
            alloc = s["load_method_alloc_bytes"] / n
            kept = (s["load_method_heap_bytes"] - s["arena_bytes"]) / n
            try:
                free = run_dist_unix(dist, path, x, heap_bytes=256 * 1024).stats["heap_free_after_load"]
                small = "yes (%d B free)" % free
            except TargetError as e:
                small = "no: " + str(e).strip().splitlines()[-1][:60]
        print("%6d %10.1f %9d %14.0f %14.0f %22s %10d" % (n, export_s, len(pte), alloc, kept, small, s["method_load_us"]))


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10, 100, 1000])

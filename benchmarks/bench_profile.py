"""What the event tracer costs (mpy_et/event_tracer.py), and the profiles it gives.

Per zoo model and precision, on one target (default the emulated 224 KB
`cortex-m3`, where time is a QEMU -icount instruction count: the same on
every machine): execute() without the tracer and with it (medians of the
same number of runs, in the same board session, host_tools.run(...,
profile=N)), the tracer's cost in board instructions, per traced step and
as a share of the inference, then the profile's per-operator table.
For float programs the with/without difference also holds the garbage
collections their allocations trigger (at other moments in other runs);
the time the traced runs spend outside the steps (dispatch loop and
tracer, from the trace itself) is printed as well.

With --baseline-tree DIR (a checkout of the runtime before the tracer, e.g.
`git archive <commit> mpy_et portable_kernels host_tools | tar -x -C DIR`),
execute() without a tracer is timed with that tree's runtime and with this
one's (same .pte, same board, --loop executes back to back between two
ticks, so the resolution is 1,000 / loop instructions), to show the
tracer-free path kept its speed.

    python benchmarks/bench_profile.py [MODEL ...] [--precision int8|fp32] [--target cortex-m3] [--runs 3] [--baseline-tree DIR]
"""

import argparse
import os
import subprocess
import sys
import tempfile

from host_tools import run
from host_tools.targets import BOARD_TARGETS

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_board_zoo import program  # noqa: E402 (the same cached exports)

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_HERE)
# Device code: `n` executes back to back between two ticks, twice (finer than
# one tick per execute(): 1 us = 1,000 board instructions).
_LOOP_DEVICE = """
import time
import mpy_et
m = mpy_et.Program.load(DATA_DIR + "/m.pte").load_method()
x = open(DATA_DIR + "/x.bin", "rb").read()

def go(n):
    m.set_input(0, x)
    m.execute()
    t = time.ticks_us()
    for _ in range(n):
        m.execute()
    return time.ticks_diff(time.ticks_us(), t)

print("LOOP", go(N), go(N))
"""
# Host side, run with PYTHONPATH=<tree>: that tree's runtime and kernels on the board.
_LOOP_HOST = """
import sys, torch
from host_tools.deploy.build import registry_source
from host_tools.deploy.selective import device_modules, program_operators
from host_tools.lowering.ir import tensor_bytes
from host_tools.targets import run_code
from portable_kernels.registry import KERNELS
pte = open(sys.argv[1], "rb").read()
x = tensor_bytes(torch.load(sys.argv[2])[0])
ops = [op for op in program_operators(pte) if op in KERNELS]
code = sys.argv[5].replace("N)", sys.argv[4] + ")")
print(run_code(sys.argv[3], code, {"m.pte": pte, "x.bin": x}, packages=device_modules(ops), registry=registry_source(ops, KERNELS, None)))
"""


def loop_instructions(tree, pte, inputs, target, n):
    """Board instructions per execute() (no tracer), averaged over n back-to-back
    runs, with the runtime of source tree `tree` (the slower of two such loops)."""
    import torch

    if len(inputs) != 1:
        raise SystemExit("--baseline-tree measures one-input programs")
    with tempfile.TemporaryDirectory() as tmp:
        path, saved = os.path.join(tmp, "model.pte"), os.path.join(tmp, "inputs.pt")
        with open(path, "wb") as f:
            f.write(pte)
        torch.save(list(inputs), saved)
        proc = subprocess.run(
            [sys.executable, "-c", _LOOP_HOST, path, saved, target, str(n), _LOOP_DEVICE],
            env=dict(os.environ, PYTHONPATH=tree),
            capture_output=True,
            text=True,
            cwd=tree,
        )
    if proc.returncode:
        raise RuntimeError("run with %s failed: %s" % (tree, proc.stderr[-2000:]))
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("LOOP ")][-1]
    return max(int(v) for v in line.split()[1:]) * 1000 / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="*", default=["ds_cnn"])
    ap.add_argument("--precision", default="int8", choices=["int8", "fp32"])
    ap.add_argument("--target", default="cortex-m3")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--baseline-tree", help="a source tree without the tracer: execute() of both trees on the same .pte and board")
    ap.add_argument("--loop", type=int, default=20, help="with --baseline-tree: executes timed back to back")
    ap.add_argument("--cache", default=os.path.join(_HERE, ".board_zoo_cache"))
    args = ap.parse_args()
    board = args.target in BOARD_TARGETS
    unit = "instructions" if board else "us"
    key = "execute_instructions" if board else "execute_us"
    for name in args.models:
        pte, _, inputs = program(name, args.precision, args.cache)
        res = run(pte, inputs, args.target, repeat=args.runs, profile=args.runs)
        plain = res.stats[key]
        traced = res.stats["profile_" + key]
        steps = len(res.profile.instructions)
        print("## %s %s on %s\n" % (name, args.precision, args.target))
        print("| execute() | %s |" % unit)
        print("|---|---|")
        print("| without tracer (median of %d) | %s |" % (args.runs, "{:,}".format(plain)))
        print("| with tracer (median of %d) | %s |" % (args.runs, "{:,}".format(traced)))
        print(
            "| tracer cost | %s (%.3f%%), %s per step (%d steps) |"
            % ("{:,}".format(traced - plain), 100.0 * (traced - plain) / plain, "{:,.0f}".format((traced - plain) / steps), steps)
        )
        heap = res.stats["execute_heap_bytes"], res.stats["profile_heap_bytes"]
        locked = " (heap locked)" if res.stats["execute_heap_locked"] else ""
        print("| allocated per execute(): without / with tracer | %s / %s B%s |" % (heap + (locked,)))
        over = res.profile.overhead
        print("| traced runs, outside the steps (dispatch loop + tracer) | %s (%.3f%%) |" % ("{:,.0f}".format(over), 100.0 * over / traced))
        if args.baseline_tree and board:
            n = args.loop
            base = loop_instructions(args.baseline_tree, pte, inputs, args.target, n)
            here = loop_instructions(_ROOT, pte, inputs, args.target, n)
            print("| without tracer, %d back to back: runtime of %s | %s per execute() |" % (n, args.baseline_tree, "{:,.0f}".format(base)))
            print(
                "| without tracer, %d back to back: this tree | %s per execute() (%+.4f%%) |"
                % (n, "{:,.0f}".format(here), 100.0 * (here - base) / base)
            )
        print("\n```\n%s\n```\n" % res.profile.table())


if __name__ == "__main__":
    main()

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
execute() without a tracer is measured again with that tree's runtime
(same .pte, same board), to show the tracer-free path kept its speed.

    python benchmarks/bench_profile.py [MODEL ...] [--precision int8|fp32] [--target cortex-m3] [--runs 3] [--baseline-tree DIR]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from host_tools import run
from host_tools.targets import BOARD_TARGETS

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_board_zoo import program  # noqa: E402 (the same cached exports)

_HERE = os.path.dirname(os.path.abspath(__file__))
_BASELINE = """
import json, sys, torch
from host_tools import run
res = run(sys.argv[1], torch.load(sys.argv[2]), sys.argv[3], repeat=int(sys.argv[4]))
print("STATS " + json.dumps(res.stats))
"""


def baseline_stats(tree, pte, inputs, target, repeat):
    """run()'s stats with the runtime (and harness) of another source tree."""
    import torch

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.pte")
        with open(path, "wb") as f:
            f.write(pte)
        saved = os.path.join(tmp, "inputs.pt")
        torch.save(list(inputs), saved)
        proc = subprocess.run(
            [sys.executable, "-c", _BASELINE, path, saved, target, str(repeat)],
            env=dict(os.environ, PYTHONPATH=tree),
            capture_output=True,
            text=True,
            cwd=tree,
        )
    if proc.returncode:
        raise RuntimeError("baseline run failed: %s" % proc.stderr[-2000:])
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("STATS ")][-1]
    return json.loads(line[len("STATS ") :])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="*", default=["ds_cnn"])
    ap.add_argument("--precision", default="int8", choices=["int8", "fp32"])
    ap.add_argument("--target", default="cortex-m3")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--baseline-tree", help="a source tree without the tracer: its execute() measured on the same .pte")
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
        if args.baseline_tree:
            base = baseline_stats(args.baseline_tree, pte, inputs, args.target, args.runs)
            print(
                "| without tracer, runtime of %s | %s (this tree: %+.3f%%) |"
                % (args.baseline_tree, "{:,}".format(base[key]), 100.0 * (plain - base[key]) / base[key])
            )
        print("\n```\n%s\n```\n" % res.profile.table())


if __name__ == "__main__":
    main()

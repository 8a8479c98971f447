"""The ulab delegate on CircuitPython: every fp32 zoo model exported twice,
with delegate="ulab" and without (our bytecode kernels), both run on the
circuitpython target in the same run. Prints and writes benchmarks/ulab.md:
CPU time per call of each and the speed-up, wall-clock latency, what the
partitioner took, the error against PyTorch, and the heap: free after load
(the method's load cost, delegate scratch included) and bytes allocated per
inference.

The speed-up is of CPU time (user + system of the CircuitPython process,
from two runs of 1 and 1 + N timed calls, differenced): on a shared, busy
machine a call's wall clock counts the time the process waited for a core
(a preempted 2 ms call takes 6 ms), its CPU time does not.

Not a pass/fail test.

    python benchmarks/bench_ulab.py [--repeat N] [MODEL ...]
"""

import argparse
import datetime
import os
import resource

import torch

from host_tools import export, run
from host_tools.zoo import MODELS, build

HERE = os.path.dirname(os.path.abspath(__file__))
HEAP = 8 * 1024 * 1024  # room for every zoo model both ways (1 MiB, the target's default, is too small for some)
CPU_SECONDS = 1.0  # about this much CPU time of timed calls per program for the CPU figure


def cpu_per_call(pte, inputs, heap, calls):
    """CPU seconds of one execute(): the CircuitPython process's user + system
    time with 1 + calls timed calls less that with 1, over calls."""

    def cpu(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        run(pte, inputs, target="circuitpython", repeat=repeat, heap_bytes=heap)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime

    return (cpu(1 + calls) - cpu(1)) / calls


def measure(name, repeat, heap, rounds, min_heaps=False):
    model, inputs = build(name)
    with torch.no_grad():
        want = model(*inputs)
    row = {"model": name}
    variants = (("portable", None), ("ulab", "ulab"))
    ptes, results, all_runs = {}, {}, {}
    for label, delegate in variants:
        report = {}
        ptes[label] = export(model, inputs, delegate=delegate, report=report)
        if delegate:
            runs = report["delegated"]
            taken = sum(len(r) for r in runs)
            row["claimed"] = "%d call(s), %d of %d ops" % (len(runs), taken, taken + _left(ptes[label]))
    # rounds alternate the two programs, and each keeps its lowest median (a busy
    # shared machine slows a round, never speeds it up); ulab runs get more timed calls
    for _ in range(rounds):
        for label, delegate in variants:
            res = run(ptes[label], inputs, target="circuitpython", repeat=repeat * (4 if delegate else 1), heap_bytes=heap)
            all_runs.setdefault(label, []).append(res)
            if label not in results or res.stats["execute_us"] < results[label].stats["execute_us"]:
                results[label] = res
    for label, _ in variants:
        res, pte = results[label], ptes[label]
        stats = res.stats
        calls = max(3, int(CPU_SECONDS * 1e6 / stats["execute_us_min"]))
        row[label] = {
            "cpu_us": 1e6 * cpu_per_call(pte, inputs, heap, calls),
            "cpu_calls": calls,
            "us": stats["execute_us"],
            "us_min": min(r.stats["execute_us_min"] for r in all_runs[label]),
            "err": float((torch.as_tensor(res.outputs[0]) - want).abs().max()),
            "load_heap": stats["heap_free_before_load"] - stats["heap_free_after_load"],
            "exec_alloc": stats["execute_heap_bytes"],
            "pte": len(pte),
        }
        if min_heaps:
            row.setdefault("min_heap", {})[label] = min_heap(pte, inputs, heap)
    row["speedup_cpu"] = row["portable"]["cpu_us"] / row["ulab"]["cpu_us"]
    row["speedup"] = row["portable"]["us"] / row["ulab"]["us"]
    row["speedup_min"] = row["portable"]["us_min"] / row["ulab"]["us_min"]
    return row


def min_heap(pte, inputs, hi, step=16 * 1024):
    """The smallest CircuitPython heap (to `step` bytes) in which the program
    loads and runs: what a board must have free for it, runtime included."""
    from host_tools.targets import TargetError

    lo = step
    while hi - lo > step:
        mid = (lo + hi) // 2 // step * step
        try:
            run(pte, inputs, target="circuitpython", repeat=1, heap_bytes=mid)
            hi = mid
        except TargetError:
            lo = mid
    return hi


def _left(pte):
    """Kernel calls left outside the delegates."""
    from mpy_et import Program

    m = Program.load(pte).load_method()
    return sum(1 for _, op in m.step_ops() if not op.startswith("delegate:"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default="ulab.md", help="the table's file name in benchmarks/")
    ap.add_argument("--min-heap", action="store_true", help="also find the smallest heap each program runs in (slow)")
    ap.add_argument("--heap", type=int, default=HEAP, help="CircuitPython heap bytes")
    ap.add_argument("models", nargs="*")
    args = ap.parse_args()
    names = args.models or [n for n in MODELS]
    rows = []
    for name in names:
        try:
            rows.append(measure(name, args.repeat, args.heap, args.rounds, args.min_heap))
        except Exception as e:  # a model that cannot run is a line in the notes, not the end of the run
            rows.append({"model": name, "error": "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[-1][:300])})
        print(rows[-1], flush=True)
    lines = [
        "# The ulab delegate on CircuitPython",
        "",
        "Measured by `python benchmarks/bench_ulab.py --repeat %d --rounds %d --heap %d%s` on %s: each model exported with"
        ' `delegate="ulab"` and without, both run on the `circuitpython` target (CircuitPython 10.3 unix'
        " port, 32-bit, ulab 6.5.3, x86 host) in the same run. **CPU ms**: user + system time of the CircuitPython process"
        " per execute(), from two runs of 1 and 1 + N timed calls (N: about %.1f s of calls), differenced; the speed-up is"
        " of these (a busy shared machine preempts the process, which the wall clock counts and CPU time does not; ulab's"
        " figure includes the garbage collections its allocations cause). Wall clock: the lowest over the rounds"
        " (alternating the two programs) of the median of the timed execute() calls inside CircuitPython, and the fastest"
        " single call of all rounds (--repeat calls portable, 4x that with ulab). Heap: bytes the load took (free before -"
        " free after), and bytes allocated by one execute() (ulab's result arrays and views; garbage collected); with"
        " --min-heap the smallest heap (16 KB steps) the program loads and runs in, runtime included: what a board must"
        " have free." % (args.repeat, args.rounds, args.heap, " --min-heap" if args.min_heap else "", datetime.date.today(), CPU_SECONDS),
        "",
        "| model | partitioner took | CPU ms portable / ulab | speed-up (CPU) | median ms portable / ulab | speed-up (median)"
        " | fastest call ms portable / ulab | max abs err ulab vs PyTorch"
        " | load heap portable / ulab | allocated per inference portable / ulab | .pte bytes portable / ulab"
        " | smallest heap portable / ulab |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    notes = []
    for r in rows:
        if "error" in r:
            notes.append("- %s: %s" % (r["model"], r["error"]))
            continue
        p, u = r["portable"], r["ulab"]
        least = r.get("min_heap")
        lines.append(
            "| %s | %s | %.1f / %.2f | **%.1fx** | %.1f / %.2f | %.1fx | %.1f / %.2f | %.1e | %s / %s | %s / %s | %s / %s | %s |"
            % (
                r["model"],
                r["claimed"],
                p["cpu_us"] / 1000,
                u["cpu_us"] / 1000,
                r["speedup_cpu"],
                p["us"] / 1000,
                u["us"] / 1000,
                r["speedup"],
                p["us_min"] / 1000,
                u["us_min"] / 1000,
                u["err"],
                f"{p['load_heap']:,}",
                f"{u['load_heap']:,}",
                f"{p['exec_alloc']:,}",
                f"{u['exec_alloc']:,}",
                f"{p['pte']:,}",
                f"{u['pte']:,}",
                f"{least['portable'] // 1024} KB / {least['ulab'] // 1024} KB" if least else "",
            )
        )
    with open(os.path.join(HERE, args.out), "w") as f:
        f.write("\n".join(lines + [""] + notes) + "\n")
    print("\n".join(lines + notes))


if __name__ == "__main__":
    main()

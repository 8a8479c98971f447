"""The zoo on an RP2040-class heap: every zoo model, int8 and fp32, on the
emulated 224 KB board (`cortex-m3`, deployed from ROMFS as host_tools.run
does), with board time as QEMU instruction counts (-icount shift=0: the same
on every machine).

Per model and precision: whether it loads and runs (else the first line of
the board's error), the planned arena, the runtime's own RAM beyond it
(heap kept by Program.load + the first load_method, kernel imports
included, minus the arena), heap free after load, instructions per
inference and per MAC, and whether the outputs equal CPython's run of the
same .pte (bit for bit: int8 is exact; fp32 within 1e-5). Prints a markdown
table; not a pass/fail test.

int8 programs are calibrated with 16 seeded random batches (as issue 18's
table). Exported programs are cached in --cache (default
benchmarks/.board_zoo_cache) so reruns only measure.

    python benchmarks/bench_board_zoo.py [MODEL ...] [--precision int8|fp32] [--target cortex-m3] [--quantized-io]
"""

import argparse
import os
import sys

import torch

from host_tools import export, inspect, run
from host_tools.analysis.macs import count_macs
from host_tools.targets import TargetError
from host_tools.zoo import MODELS, build

_HERE = os.path.dirname(os.path.abspath(__file__))


def _calibration(inputs, n=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [tuple(torch.randn(t.shape, generator=g) for t in inputs) for _ in range(n)]


def program(name, precision, cache, quantized_io=False):
    """(pte bytes, model, inputs), exported once per cache directory."""
    model, inputs = build(name)
    inputs = tuple(inputs)
    path = os.path.join(cache, "%s_%s%s.pte" % (name, precision, "_qio" if quantized_io else ""))
    if os.path.isfile(path):
        with open(path, "rb") as f:
            return f.read(), model, inputs
    if precision == "int8":
        pte = export(model, inputs, quantize="int8", calibration=_calibration(inputs), quantized_io=quantized_io)
    else:
        pte = export(model, inputs)
    os.makedirs(cache, exist_ok=True)
    with open(path, "wb") as f:
        f.write(pte)
    return pte, model, inputs


def _error_line(e):
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    for ln in reversed(lines):
        if "Error" in ln:
            return ln[:140]
    return lines[-1][:140] if lines else type(e).__name__


def measure(name, precision, target, cache, timeout, quantized_io=False):
    pte, model, inputs = program(name, precision, cache, quantized_io and precision == "int8")
    macs = count_macs(model, inputs)
    label = precision + (" qio" if quantized_io and precision == "int8" else "")
    row = {"model": name, "precision": precision, "label": label, "macs": macs, "pte_bytes": len(pte)}
    row["steps"] = inspect(pte)["instructions"]
    try:
        res = run(pte, inputs, target, repeat=1, timeout=timeout)
    except TargetError as e:
        row["error"] = _error_line(e)
        return row
    s = res.stats
    ref = run(pte, inputs, "cpython", repeat=1).outputs
    if precision == "int8":
        same = all(torch.equal(a, b) for a, b in zip(res.outputs, ref))
    else:
        same = all(torch.allclose(a, b, atol=1e-5, rtol=1e-5) for a, b in zip(res.outputs, ref))
    kept = (s.get("program_heap_bytes") or 0) + (s.get("first_load_method_heap_bytes") or 0)
    row.update(
        arena=s["arena_bytes"],
        runtime_ram=kept - s["arena_bytes"],
        free_after=s["heap_free_after_load"],
        instructions=s["execute_instructions"],
        per_mac=s["execute_instructions"] / macs if macs else None,
        same=same,
        locked=s.get("execute_heap_locked"),
        execute_heap=s.get("execute_heap_bytes"),
    )
    return row


def table(rows):
    out = [
        "| model | precision | runs | arena B | runtime RAM beyond arena B | heap free after load B | instructions / inference | per MAC | = CPython | heap locked |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "error" in r:
            out.append("| %s | %s | **no**: %s | | | | | | | |" % (r["model"], r["precision"], r["error"]))
            continue
        out.append(
            "| %s | %s | yes | {:,} | {:,} | {:,} | {:,} | %s | %s | %s |".format(
                r["arena"], r["runtime_ram"], r["free_after"], r["instructions"]
            )
            % (
                r["model"],
                r["precision"],
                "%.1f" % r["per_mac"] if r["per_mac"] else "n/a",
                "yes" if r["same"] else "**no**",
                "yes" if r["locked"] else "no",
            )
        )
    runs = {p: sum(1 for r in rows if r["precision"] == p and "error" not in r) for p in ("int8", "fp32")}
    totals = {p: sum(1 for r in rows if r["precision"] == p) for p in ("int8", "fp32")}
    out.append("")
    out.append("Runs: " + ", ".join("%s %d of %d" % (p, runs[p], totals[p]) for p in ("int8", "fp32") if totals[p]))
    out += ["", "Issue 18 goal 2: runtime RAM <= 32 KB + 200 B per instruction", ""]
    out += ["| model | precision | instructions | limit B | runtime RAM B | within |", "|---|---|---|---|---|---|"]
    within = 0
    for r in rows:
        if "error" in r:
            continue
        limit = 32768 + 200 * r["steps"]
        ok = r["runtime_ram"] <= limit
        within += ok
        verdict = "yes" if ok else "**no** (+{:,})".format(r["runtime_ram"] - limit)
        out.append("| %s | %s | %d | {:,} | {:,} | %s |".format(limit, r["runtime_ram"]) % (r["model"], r["label"], r["steps"], verdict))
    out.append("")
    out.append("Within: %d of %d runs" % (within, sum(1 for r in rows if "error" not in r)))
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", help="zoo models (default: all)")
    ap.add_argument("--precision", choices=["int8", "fp32"], action="append", help="default: both")
    ap.add_argument("--target", default="cortex-m3")
    ap.add_argument("--cache", default=os.path.join(_HERE, ".board_zoo_cache"))
    ap.add_argument("--timeout", type=int, default=900, help="seconds per board run")
    ap.add_argument("--quantized-io", action="store_true", help="int8 programs with int8 inputs and outputs (export(quantized_io=True))")
    args = ap.parse_args(argv)
    rows = []
    for name in args.models or list(MODELS):
        for precision in args.precision or ("int8", "fp32"):
            row = measure(name, precision, args.target, args.cache, args.timeout, args.quantized_io)
            print(row, file=sys.stderr, flush=True)
            rows.append(row)
    print(table(rows))


if __name__ == "__main__":
    main()

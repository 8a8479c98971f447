"""Board speed: every zoo model x {cortex-m3, cortex-m7} x {fp32, int8}, as
QEMU instruction counts (-icount shift=0: the same on every machine),
per inference and per multiply-accumulate, and for the four MLPerf Tiny
models beside MLPerf Tiny's published latencies converted to cycles
(latency x clock) - our instructions against their cycles, not the same
unit (a Cortex-M4 takes more than one cycle for some instructions, QEMU
counts one per instruction).

A model whose arena does not fit `cortex-m3` (224 KB heap) runs on
`cortex-m3-large` (the same CPU and firmware with a 3.5 MB heap: the same
instructions); the table says which. Programs come from bench_board_zoo's
cache (int8: 16 seeded random calibration batches; outputs checked against
CPython's run of the same .pte as there). Prints markdown; not a test.

    python benchmarks/bench_board_speed.py [MODEL ...] [--cache DIR]
        [--precision fp32|int8] [--rows FILE]

`--rows FILE` keeps the measured rows in a JSON file: rows already there
are not measured again, so the table can be made in parts (e.g. fp32 now,
int8 later) and printed whole once every row is in the file.
"""

import argparse
import json
import os
import sys

from bench_board_zoo import measure

from host_tools.zoo import MODELS

_HERE = os.path.dirname(os.path.abspath(__file__))

# MLPerf Tiny: ST's Cortex-M4 at 120 MHz, latencies as
# quoted in issue 20: (task, model here, milliseconds)
MLPERF = [("KWS", "ds_cnn", 43.0), ("VWW", "mobilenet_v1_025", 89.0), ("IC", "resnet8", 165.0), ("AD", "fc_autoencoder", 4.7)]
MLPERF_MHZ = 120


def run_all(models, cache, timeout, precisions=("fp32", "int8"), rows=None, save=None):
    rows = {} if rows is None else rows
    for name in models:
        for precision in precisions:
            for target in ("cortex-m3", "cortex-m7"):
                if (name, precision, target) in rows:
                    continue
                row = measure(name, precision, target, cache, timeout)
                if target == "cortex-m3" and "MemoryAllocationFailed" in row.get("error", ""):
                    row = measure(name, precision, "cortex-m3-large", cache, timeout)
                    row["large"] = True
                print(target, row, file=sys.stderr, flush=True)
                rows[name, precision, target] = row
                if save:
                    save(rows)
    return rows


def load_rows(path):
    if not path or not os.path.exists(path):
        return {}
    with open(path) as f:
        return {tuple(k.split("|")): v for k, v in json.load(f).items()}


def save_rows(path, rows):
    with open(path, "w") as f:
        json.dump({"|".join(k): v for k, v in rows.items()}, f, indent=1, sort_keys=True)


def _cell(row):
    if "error" in row:
        return "fails: %s" % row["error"][:60], ""
    mark = "" if row["same"] else " (**!= CPython**)"
    large = " (m3-large)" if row.get("large") else ""
    return "{:,}{}{}".format(row["instructions"], large, mark), "%.1f" % row["per_mac"]


def table(rows, models):
    out = [
        "| model | MACs | precision | cortex-m3 instructions | per MAC | cortex-m7 instructions | per MAC |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in models:
        for precision in ("fp32", "int8"):
            if (name, precision, "cortex-m3") not in rows or (name, precision, "cortex-m7") not in rows:
                continue
            m3, m7 = rows[name, precision, "cortex-m3"], rows[name, precision, "cortex-m7"]
            out.append("| %s | {:,} | %s | %s | %s | %s | %s |".format(m3["macs"]) % ((name, precision) + _cell(m3) + _cell(m7)))
    out += [
        "",
        "MLPerf Tiny (int8): our instructions per inference against their published cycles per inference",
        "(latency x %d MHz, ST Cortex-M4, as quoted in issue 20)." % MLPERF_MHZ,
        "",
        "| task | model | their cycles (Cortex-M4) | our instructions cortex-m3 | our instructions cortex-m7 | ours / theirs (m7) |",
        "|---|---|---|---|---|---|",
    ]
    for task, name, ms in MLPERF:
        if (name, "int8", "cortex-m7") not in rows or (name, "int8", "cortex-m3") not in rows:
            continue
        cycles = int(ms * MLPERF_MHZ * 1000)
        m3, m7 = rows[name, "int8", "cortex-m3"], rows[name, "int8", "cortex-m7"]
        ratio = "%.2f" % (m7["instructions"] / cycles) if "error" not in m7 else ""
        out.append("| %s | %s | {:,} | %s | %s | %s |".format(cycles) % (task, name, _cell(m3)[0], _cell(m7)[0], ratio))
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", help="zoo models (default: all)")
    ap.add_argument("--cache", default=os.path.join(_HERE, ".board_zoo_cache"))
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per board run")
    ap.add_argument("--precision", choices=["fp32", "int8"], action="append", help="default: both")
    ap.add_argument("--rows", help="JSON file of measured rows: read first, written after each run")
    args = ap.parse_args(argv)
    models = args.models or list(MODELS)
    save = (lambda rows: save_rows(args.rows, rows)) if args.rows else None
    rows = run_all(models, args.cache, args.timeout, args.precision or ("fp32", "int8"), load_rows(args.rows), save)
    print(table(rows, models))


if __name__ == "__main__":
    main()

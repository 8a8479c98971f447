"""Every zoo model: parameters, MACs, latency on unix MicroPython (measured
inside the target), ExecuTorch's portable runtime and PyTorch eager from the
same run, ratios, ns/MAC, and WebAssembly latency for the models that fit the
time. Every model is timed in --rounds rounds and each figure keeps the
lowest median (a busy shared machine slows a round, never speeds it up).
Writes benchmarks/zoo.md (a markdown table) and, with matplotlib
installed (`pip install -e ".[bench]"`), benchmarks/zoo.png.

Not a pass/fail test: what cannot be measured for a model (its export, a
target, ExecuTorch) is an empty cell and a note saying why; the other columns
of that model are still measured.

    python benchmarks/bench_zoo.py [--repeat N] [--rounds N] [--wasm-max-macs N] [MODEL ...]
"""

import argparse
import datetime
import os
import platform

import torch
from timing import median_us

from host_tools import export, run
from host_tools.analysis.macs import count_macs
from host_tools.lowering.lower import UnsupportedOps
from host_tools.zoo import MODELS, build

HERE = os.path.dirname(os.path.abspath(__file__))
UNIX_HEAP = 8 * 1024 * 1024  # room for every zoo model; a larger fresh heap adds page faults that vary from run to run


def _attempt(row, key, fn):
    """row[key] = fn(), or None with the reason in row["notes"]."""
    try:
        row[key] = fn()
    except Exception as e:  # a model that cannot run yet is a note in the table, not the end of the run
        lines = [ln.strip() for ln in str(e).strip().splitlines()] or [""]
        why = "; ".join(lines) if isinstance(e, UnsupportedOps) else lines[-1]  # every op, or a traceback's last line
        row[key] = None
        row["notes"].append("%s: %s: %s" % (key, type(e).__name__, why[:400]))
    return row[key]


def _executorch_method(model, inputs):
    from executorch.exir import to_edge
    from executorch.runtime import Runtime

    buffer = to_edge(torch.export.export(model, inputs)).to_executorch().buffer
    program = Runtime.get().load_program(buffer)
    method = program.load_method("forward")
    method.execute(list(inputs))
    return buffer, program, method  # the method reads the program and its buffer: keep all three alive


def repeats(macs, base, most):
    """Timed runs for a model: `base`, more for small models (about base x 1 M
    MACs in all, at most `most`) so that their medians rest on enough samples."""
    return max(base, min(most, base * 1_000_000 // max(1, macs or 1)))


def prepare(name, wasm_max_macs):
    """A row with what every round reuses: the model, its .pte, ExecuTorch's
    loaded method; each piece on its own (a failure leaves the others)."""
    model, inputs = build(name)
    row = {"name": name, "notes": [], "params": sum(p.numel() for p in model.parameters())}
    row["model"], row["inputs"] = model, inputs
    with torch.no_grad():
        row["want"] = model(*inputs)
    macs = _attempt(row, "macs", lambda: count_macs(model, inputs))
    _attempt(row, "pte", lambda: export(model, inputs))
    _attempt(row, "et_method", lambda: _executorch_method(model, inputs))
    row["run_wasm"] = macs is not None and macs <= wasm_max_macs
    if not row["run_wasm"]:
        row["notes"].append("wasm: not run (%s MACs > --wasm-max-macs %d)" % (macs, wasm_max_macs))
    return row


def _keep_lower(row, key, value):
    if value is not None and (row.get(key) is None or value < row[key]):
        row[key] = value


def measure(row, repeat):
    """One round of timings; each figure keeps the lowest median of the rounds."""
    model, inputs, macs, pte = row["model"], row["inputs"], row.get("macs"), row.get("pte")
    with torch.no_grad():
        _keep_lower(row, "torch_us", median_us(lambda: model(*inputs), repeats(macs, repeat * 5, 200)))
    if row.get("et_method") is not None:
        method = row["et_method"][2]
        _keep_lower(row, "et_us", median_us(lambda: method.execute(list(inputs)), repeats(macs, repeat * 5, 200)))
    if pte is None:
        return
    unix = _attempt(row, "unix", lambda: run(pte, inputs, "unix", repeat=repeats(macs, repeat, 40), heap_bytes=UNIX_HEAP))
    if unix is not None:
        _keep_lower(row, "unix_us", unix.stats["execute_us"])
        row["unix_err"] = float((unix.outputs[0] - row["want"]).abs().max())
    if row["run_wasm"]:
        wasm = _attempt(row, "wasm", lambda: run(pte, inputs, "wasm", repeat=repeats(macs, 1, 10)))
        if wasm is not None:
            _keep_lower(row, "wasm_us", wasm.stats["execute_us"])


def _num(v, fmt="{:,.0f}"):
    return "" if v is None else fmt.format(v)


def _ratio(a, b):
    return None if a is None or not b else a / b


def _per_mac(us, row):
    return None if us is None or not row.get("macs") else us * 1000 / row["macs"]


HEADER = [
    "model",
    "params",
    "MACs",
    "unix MicroPython us",
    "ExecuTorch portable us",
    "PyTorch eager us",
    "unix / ExecuTorch",
    "unix / PyTorch",
    "unix ns/MAC",
    "ExecuTorch ns/MAC",
    "wasm us",
    "wasm / unix",
    "max abs err (unix vs PyTorch)",
]


def cells(r):
    unix, et, wasm = r.get("unix_us"), r.get("et_us"), r.get("wasm_us")
    return [
        r["name"],
        _num(r["params"]),
        _num(r.get("macs")),
        _num(unix),
        _num(et),
        _num(r.get("torch_us")),
        _num(_ratio(unix, et), "{:.1f}x"),
        _num(_ratio(unix, r.get("torch_us")), "{:.0f}x"),
        _num(_per_mac(unix, r)),
        _num(_per_mac(et, r), "{:.1f}"),
        _num(wasm),
        _num(_ratio(wasm, unix), "{:.2f}x"),
        _num(r.get("unix_err"), "{:.1e}"),
    ]


def table(rows):
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(cells(r)) + " |" for r in rows]
    notes = ["- %s: %s" % (r["name"], n) for r in rows for n in r["notes"]]
    return "\n".join(lines + ([""] + notes if notes else []))


def chart(rows, path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no chart (pip install -e '.[bench]')")
        return
    names = [r["name"] for r in rows]
    x = range(len(rows))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(11, 8), sharex=True)
    series = [("unix_us", "mpy_et, unix MicroPython"), ("wasm_us", "mpy_et, WebAssembly"), ("et_us", "ExecuTorch portable (C++)")]
    series.append(("torch_us", "PyTorch eager"))
    width = 0.8 / len(series)
    for i, (key, label) in enumerate(series):
        top.bar([j + (i - 1.5) * width for j in x], [r.get(key) or 0 for r in rows], width, label=label)
    top.set_yscale("log")
    top.set_ylabel("latency per inference (us, log)")
    top.legend(fontsize=8)
    top.set_title("Zoo models, fp32, measured in one run")
    bottom.bar(list(x), [_ratio(r.get("unix_us"), r.get("et_us")) or 0 for r in rows], color="tab:blue")
    bottom.axhline(30, color="r", linestyle="--", label="issue 7 goal: 30x")
    bottom.set_ylabel("unix MicroPython / ExecuTorch portable")
    bottom.legend(fontsize=8)
    bottom.set_xticks(list(x))
    bottom.set_xticklabels(names, rotation=40, ha="right")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    print("wrote", path)


def _versions():
    from importlib.metadata import version

    return "torch %s, executorch %s, Python %s, %s with %d CPUs" % (
        torch.__version__,
        version("executorch"),
        platform.python_version(),
        platform.machine(),
        os.cpu_count(),
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5, help="timed executions on unix (after one warm-up); x5 on the host")
    ap.add_argument("--wasm-max-macs", type=int, default=2_000_000, help="skip WebAssembly above this many MACs")
    ap.add_argument("--rounds", type=int, default=2, help="time every model this many times; keep the lowest median")
    ap.add_argument("models", nargs="*")
    args = ap.parse_args()
    torch.set_num_threads(1)
    load = os.getloadavg()[0]
    rows = []
    for name in args.models or list(MODELS):
        rows.append(prepare(name, args.wasm_max_macs))
    for round_ in range(args.rounds):
        print("round %d of %d" % (round_ + 1, args.rounds))
        print("| " + " | ".join(HEADER) + " |")
        for row in rows:
            measure(row, args.repeat)
            print("| " + " | ".join(cells(row)) + " |", flush=True)
    for row in rows:
        row["notes"] = sorted(set(row["notes"]), key=row["notes"].index)  # a failure repeated each round: once
    text = table(rows)
    with open(os.path.join(HERE, "zoo.md"), "w") as f:
        f.write(
            "Measured by `python benchmarks/bench_zoo.py --repeat %d --rounds %d` on %s (%s; load average %.1f at the start, %.1f at the end).\n"
            % (args.repeat, args.rounds, datetime.date.today().isoformat(), _versions(), load, os.getloadavg()[0])
        )
        f.write(
            "Each latency is the lowest of the rounds' medians (a round: one warm-up, then --repeat runs, more for small models): "
            "unix and wasm measured inside MicroPython, ExecuTorch's portable runtime (its Python bindings) and PyTorch eager "
            "(1 thread) on the host. The machine is shared: figures move between runs.\n\n"
        )
        f.write(text + "\n")
    print("\n" + text)
    chart(rows, os.path.join(HERE, "zoo.png"))


if __name__ == "__main__":
    main()

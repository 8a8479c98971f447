"""Every zoo model: MACs, latency on unix MicroPython (measured inside the
target), ExecuTorch's portable runtime and PyTorch eager from the same run,
ratios, ns/MAC, and WebAssembly latency for the models that fit the time.
Writes benchmarks/zoo.md (a markdown table) and, with matplotlib installed
(`pip install -e ".[bench]"`), benchmarks/zoo.png. Not a pass/fail test: a
model that fails is a row saying why.

    python benchmarks/bench_zoo.py [--repeat N] [--wasm-max-macs N] [MODEL ...]
"""

import argparse
import os

import torch
from timing import median_us

from host_tools import export, run
from host_tools.macs import count_macs
from host_tools.zoo import MODELS, build

HERE = os.path.dirname(os.path.abspath(__file__))


def measure(name, repeat, wasm_max_macs):
    from executorch.exir import to_edge
    from executorch.runtime import Runtime

    model, inputs = build(name)
    macs = count_macs(model, inputs)
    pte = export(model, inputs)
    et_method = Runtime.get().load_program(to_edge(torch.export.export(model, inputs)).to_executorch().buffer).load_method("forward")
    et_method.execute(list(inputs))
    et_us = median_us(lambda: et_method.execute(list(inputs)), repeat * 5)
    with torch.no_grad():
        torch_us = median_us(lambda: model(*inputs), repeat * 5)
    unix_us = run(pte, inputs, "unix", repeat=repeat, heap_bytes=64 * 1024 * 1024).stats["execute_us"]
    wasm_us = run(pte, inputs, "wasm", repeat=1).stats["execute_us"] if macs <= wasm_max_macs else None
    return {"name": name, "macs": macs, "unix_us": unix_us, "et_us": et_us, "torch_us": torch_us, "wasm_us": wasm_us}


def table(rows):
    lines = [
        "| model | MACs | unix MicroPython us | ExecuTorch portable us | PyTorch eager us | unix / ExecuTorch | unix ns/MAC | wasm us |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "error" in r:
            lines.append("| %s | fails: %s |  |  |  |  |  |  |" % (r["name"], r["error"]))
            continue
        lines.append(
            "| %s | %d | %d | %.0f | %.0f | %.1fx | %.0f | %s |"
            % (
                r["name"],
                r["macs"],
                r["unix_us"],
                r["et_us"],
                r["torch_us"],
                r["unix_us"] / r["et_us"],
                r["unix_us"] * 1000 / max(1, r["macs"]),
                "n/a (too slow for the run)" if r["wasm_us"] is None else "%d" % r["wasm_us"],
            )
        )
    return "\n".join(lines)


def chart(rows, path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no chart (pip install -e '.[bench]')")
        return
    ok = [r for r in rows if "error" not in r]
    fig, ax = plt.subplots(figsize=(10, 4))
    ax.bar([r["name"] for r in ok], [r["unix_us"] / r["et_us"] for r in ok])
    ax.axhline(30, color="r", linestyle="--", label="goal: 30x")
    ax.set_ylabel("unix MicroPython / ExecuTorch portable")
    ax.set_yscale("log")
    ax.legend()
    plt.xticks(rotation=45, ha="right")
    fig.tight_layout()
    fig.savefig(path)
    print("wrote", path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--wasm-max-macs", type=int, default=2_000_000)
    ap.add_argument("models", nargs="*")
    args = ap.parse_args()
    torch.set_num_threads(1)
    rows = []
    for name in args.models or list(MODELS):
        try:
            rows.append(measure(name, args.repeat, args.wasm_max_macs))
        except Exception as e:  # one model failing is a row of the table, not the end of it
            rows.append({"name": name, "error": str(e).strip().splitlines()[-1][:120]})
        print(table(rows[-1:]).splitlines()[-1], flush=True)
    text = table(rows)
    with open(os.path.join(HERE, "zoo.md"), "w") as f:
        f.write("Measured by `python benchmarks/bench_zoo.py` (unix MicroPython %s).\n\n" % "x64, one core shared with others")
        f.write(text + "\n")
    print("\n" + text)
    chart(rows, os.path.join(HERE, "zoo.png"))


if __name__ == "__main__":
    main()

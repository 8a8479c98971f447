"""Every quantized zoo model: speed against ExecuTorch's portable runtime
running the fp32 model in the same run, instructions per MAC on the emulated
Cortex-M3, WebAssembly latency of the pure-Python reference path, the heap
execute() allocates on each target, accuracy against PyTorch's PT2E graph and
the float-vs-int8 gap, and the ops that stayed float. Writes
benchmarks/int8.md (table + per-model notes). Not a pass/fail test (that is
tests/test_quant_zoo.py); a figure that cannot be measured is an empty cell
and a note.

Timings: every host figure keeps the lowest median of --rounds rounds (a busy
shared machine slows a round, never speeds it up); the board's figure is an
instruction count (QEMU -icount shift=0: deterministic).

Accuracy runs on the host integer reference (the fused graph computed by
host_tools/quant_ref.py), which tests/test_quant_zoo.py and test_kernels.py
hold bit-identical to the device kernels: it is our kernels' arithmetic.

    python benchmarks/bench_int8.py [--repeat N] [--rounds N] [--inputs N] [--no-board] [--no-wasm]
                                    [--wasm-max-macs N] [MODEL ...]
"""

import argparse
import datetime
import os

import torch
from timing import median_us

from host_tools import export, run
from host_tools.macs import count_macs
from host_tools.quantize import quantize_pt2e_int8
from host_tools.zoo import MODELS, build

HERE = os.path.dirname(os.path.abspath(__file__))
CLASSIFIERS = ("ds_cnn", "mobilenet_v1_025", "resnet8", "lenet5", "mlp", "imu_cnn1d", "gru", "lstm")
_DEQ = "mpy_et_quant.dequantize_per_tensor"


def _attempt(row, key, fn):
    try:
        row[key] = fn()
    except Exception as e:  # one target failing is a note, not the end of the run
        lines = [ln.strip() for ln in str(e).strip().splitlines() if ln.strip()] or [""]
        row[key] = None
        row["notes"].append("%s: %s: %s" % (key, type(e).__name__, lines[-1][:300]))
    return row[key]


def _out_scale(gm):
    """Scale of the output's dequantize, else of the last int8 tensor (and whether the output is int8)."""
    out = next(iter(gm.graph.find_nodes(op="output")[0].args[0]))
    if out.op == "call_function" and _DEQ in str(out.target):
        return float(out.args[2]), True
    deqs = [n for n in gm.graph.nodes if n.op == "call_function" and _DEQ in str(n.target)]
    return float(deqs[-1].args[2]), False


def _top1(t):
    return t.reshape(t.shape[0], -1).argmax(1)


def prepare(name, n_inputs):
    model, inputs = build(name)
    row = {"name": name, "notes": [], "inputs": inputs}
    torch.manual_seed(1)
    calibration = [tuple(torch.randn_like(t) for t in inputs) for _ in range(16)]
    report = {}
    row["pte"] = export(model, inputs, quantize="int8", calibration=calibration, report=report)
    row["macs"] = count_macs(model, inputs)
    row["float_ops"] = sorted(set(op for op, _ in report["float_ops"]))
    ref, pt2e = report["reference"], quantize_pt2e_int8(model, inputs, calibration)
    scale, int8_out = _out_scale(ref)
    row["int8_output"] = int8_out
    torch.manual_seed(7)
    worst = gap = 0.0
    agree_pt2e = agree_fp32 = total = 0
    with torch.no_grad():
        for i in range(n_inputs):
            x = inputs if i == 0 else tuple(torch.randn_like(t) for t in inputs)
            ours, pt, fp = ref(*x), pt2e(*x), model(*x)
            worst = max(worst, (ours - pt).abs().max().item())
            gap = max(gap, (ours - fp).abs().max().item())
            agree_pt2e += int((_top1(ours) == _top1(pt)).sum())
            agree_fp32 += int((_top1(ours) == _top1(fp)).sum())
            total += _top1(ours).numel()
            if i == 0:
                row["fp32_range"] = fp.abs().max().item()
    row["quanta"] = worst / scale
    row["gap"] = gap
    if name in CLASSIFIERS:
        row["top1_pt2e"] = agree_pt2e / total
        row["top1_fp32"] = agree_fp32 / total
        row["top1_n"] = total
    _attempt(row, "et_method", lambda: _executorch_method(model, inputs))
    return row


def _executorch_method(model, inputs):
    from executorch.exir import to_edge
    from executorch.runtime import Runtime

    buffer = to_edge(torch.export.export(model, inputs)).to_executorch().buffer
    program = Runtime.get().load_program(buffer)
    method = program.load_method("forward")
    method.execute(list(inputs))
    return buffer, program, method


def _keep_lower(row, key, value):
    if value is not None and (row.get(key) is None or value < row[key]):
        row[key] = value


def measure(row, args, first):
    inputs, macs = row["inputs"], row["macs"]
    repeat = max(args.repeat, min(10 * args.repeat, args.repeat * 1_000_000 // max(1, macs)))
    if row.get("et_method"):
        m = row["et_method"][2]
        _keep_lower(row, "et_us", median_us(lambda: m.execute(list(inputs)), repeat))
    s = _attempt(row, "_unix", lambda: run(row["pte"], inputs, "unix", repeat=repeat).stats)
    if s:
        _keep_lower(row, "unix_us", s["execute_us"])
        row["heap_unix"] = s["execute_heap_bytes"]
        row["locked"] = s["execute_heap_locked"]
    if not first:
        return
    if not args.no_board:
        s = _attempt(row, "_m3", lambda: run(row["pte"], inputs, "cortex-m3-large", repeat=1).stats)
        if s:
            row["m3_instr"] = s["execute_instructions"]
            row["heap_m3"] = s["execute_heap_bytes"]
    if not args.no_wasm and macs <= args.wasm_max_macs:
        s = _attempt(row, "_wasm", lambda: run(row["pte"], inputs, "wasm", repeat=1).stats)
        if s:
            row["wasm_us"] = s["execute_us"]
            row["heap_wasm"] = s["execute_heap_bytes"]


def _n(v, fmt="{:,.0f}"):
    return "" if v is None else fmt.format(v)


def cells(r):
    et, ux, macs = r.get("et_us"), r.get("unix_us"), r["macs"]
    heaps = " / ".join("-" if r.get(k) is None else _n(r[k]) for k in ("heap_unix", "heap_m3", "heap_wasm"))
    return [
        r["name"],
        _n(macs),
        _n(et, "{:,.1f}"),
        _n(ux, "{:,.1f}"),
        _n(ux / et if et and ux else None, "{:.2f}x"),
        _n(ux * 1000 / macs if ux else None, "{:.2f}"),
        _n(r["m3_instr"] / macs if r.get("m3_instr") else None, "{:.1f}"),
        _n(r["wasm_us"] / 1000 if r.get("wasm_us") else None, "{:,.1f}"),
        heaps,
        "{:.2f}".format(r["quanta"]) + ("" if r["int8_output"] else "*"),
        _n(r.get("top1_pt2e"), "{:.1%}"),
        _n(r["gap"], "{:.3f}") + " / " + _n(r["fp32_range"], "{:.2f}"),
        _n(r.get("top1_fp32"), "{:.1%}"),
        ", ".join(op.replace("aten::", "") for op in r["float_ops"]) or "none",
    ]


HEADER = [
    "model",
    "MACs",
    "ET fp32 us",
    "unix int8 us",
    "ratio",
    "unix ns/MAC",
    "m3 instr/MAC",
    "wasm ms",
    "execute heap B unix / m3 / wasm",
    "max err vs PT2E (quanta)",
    "top-1 = PT2E",
    "max err vs fp32 / max |fp32|",
    "top-1 = fp32",
    "stayed float",
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="*", help="zoo models (default: all)")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--inputs", type=int, default=1000, help="random inputs for the accuracy figures")
    ap.add_argument("--no-board", action="store_true")
    ap.add_argument("--no-wasm", action="store_true")
    ap.add_argument("--wasm-max-macs", type=int, default=3_000_000)
    ap.add_argument("--out", default=os.path.join(HERE, "int8.md"))
    args = ap.parse_args()
    torch.set_num_threads(1)
    load = os.getloadavg()[0]
    rows = []
    for name in args.models or list(MODELS):
        print("preparing", name, flush=True)
        rows.append(prepare(name, args.inputs))
    for round_ in range(args.rounds):
        for r in rows:
            measure(r, args, round_ == 0)
            print(" | ".join(cells(r)), flush=True)
    lines = [
        "# int8 zoo benchmark (issue 9)",
        "",
        "Measured by `python benchmarks/bench_int8.py --repeat %d --rounds %d --inputs %d` on %s (load average %.1f at the start, %.1f at the end; 2 cores shared with other jobs)."
        % (args.repeat, args.rounds, args.inputs, datetime.date.today().isoformat(), load, os.getloadavg()[0]),
        "",
        "- ET fp32: ExecuTorch's portable runtime (C++ portable kernels) running the fp32 model, timed in this process; "
        "unix int8: mpy_et on unix MicroPython (viper fast paths), median inside the target; both keep the lowest median of the rounds.",
        "- m3 instr/MAC: execute() on the emulated Cortex-M3 (cortex-m3-large; viper + asm_thumb), QEMU -icount: instructions, deterministic.",
        "- wasm ms: MicroPython WebAssembly, the pure-Python reference path (32-bit); models above %s MACs skipped."
        % _n(args.wasm_max_macs),
        "- execute heap: bytes one execute() allocated on each target (0 = ran with the heap locked, mpy_et/noalloc.py).",
        "- Accuracy over %d inputs (the example input + seeded standard normal ones, not a data set): our integer arithmetic "
        "(the host integer reference, bit-identical to the device kernels in tests/test_quant_zoo.py) against PyTorch's PT2E-converted "
        "graph with the same quantization parameters (max |difference| in quanta of the output scale; * = the output is made by a "
        "float op, quanta of the last int8 tensor's scale) and against the fp32 model (the quantization error). top-1 for classifiers."
        % args.inputs,
        "",
        "| " + " | ".join(HEADER) + " |",
        "|" + "---|" * len(HEADER),
    ]
    lines += ["| " + " | ".join(cells(r)) + " |" for r in rows]
    lines += ["", "## Notes", ""]
    for r in rows:
        kb = len(r["pte"]) / 1024
        note = "- %s: int8 .pte %.1f KB; %s" % (
            r["name"],
            kb,
            "fully int8" if not r["float_ops"] else "float islands: " + ", ".join(r["float_ops"]),
        )
        lines.append(note + "".join("; " + n for n in r["notes"]))
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote", args.out)


if __name__ == "__main__":
    main()

"""The quantized model zoo: speed against ExecuTorch's portable runtime running
the fp32 model in the same run, instructions per MAC on the emulated board,
heap during execute() and accuracy. Prints and writes a markdown table; not a
pass/fail test.

Per zoo model (host_tools/zoo, exported with quantize="int8" from 16 random
calibration inputs through PyTorch's PT2E flow with our Quantizer):
- MACs; ExecuTorch portable fp32 (C++) and unix MicroPython int8 latency, their
  ratio and ns/MAC (host medians, same run, noisy: 2 shared cores);
- instructions per MAC on cortex-m3-large (QEMU -icount shift=0: deterministic);
- WebAssembly latency (pure-Python reference path, 32-bit);
- bytes execute() allocated on unix / cortex-m3-large / wasm and whether
  execute() locked the heap itself (every step marked allocation-free);
- accuracy: max |ours - PT2E reference| in output quanta (ours = unix output),
  top-1 agreement with the PT2E graph over --top1 random inputs (ours = the host
  integer reference, the fused graph whose outputs tests/test_quant_zoo.py
  checks bit-identical with our kernels on every target);
- float-vs-int8 gap: max |fp32 model - int8| on the example input and top-1
  agreement with the fp32 model over the same inputs; the ops that stayed float.

    python benchmarks/bench_int8.py [--models ds_cnn,lenet5|all] [--repeat N] [--top1 N]
        [--no-board] [--no-wasm] [--out benchmarks/int8.md]
"""

import argparse
import copy
import datetime
import os

import torch
from timing import median_us

from host_tools import export, run
from host_tools.analysis.macs import count_macs
from host_tools.quantize.pt2e import quantize_pt2e_int8
from host_tools.zoo import MODELS, build

CLASSIFIERS = ("ds_cnn", "mobilenet_v1_025", "resnet8", "lenet5", "mlp", "imu_cnn1d")
_DEQ = "mpy_et_quant.dequantize_per_tensor"
_HERE = os.path.dirname(os.path.abspath(__file__))


def _out_scale(gm):
    """Scale of the int8 tensor dequantized last before the output (the output's quantum)."""
    deqs = [n for n in gm.graph.nodes if n.op == "call_function" and _DEQ in str(n.target)]
    return float(deqs[-1].args[2])


def _top1(model, converted, reference, inputs, n, scale):
    """(agree with PT2E, agree with fp32, total rows, max |ours - PT2E| in quanta) over n random inputs."""
    torch.manual_seed(7)
    pt2e = fp32 = total = 0
    worst = 0.0
    with torch.no_grad():
        for _ in range(n):
            x = tuple(torch.randn_like(t) for t in inputs)
            ours, theirs = reference(*x), converted(*x)
            worst = max(worst, float((ours - theirs).abs().max()) / scale)
            rows = ours.shape[0]
            ours = ours.reshape(rows, -1).argmax(1)
            pt2e += int((ours == theirs.reshape(rows, -1).argmax(1)).sum())
            fp32 += int((ours == model(*x).reshape(rows, -1).argmax(1)).sum())
            total += rows
    return pt2e, fp32, total, worst


def _measure(name, args, et_runtime, to_edge):
    model, inputs = build(name)
    torch.manual_seed(1)
    calibration = [tuple(torch.randn_like(t) for t in inputs) for _ in range(16)]
    converted = quantize_pt2e_int8(model, inputs, calibration)
    report = {}
    pte = export(copy.deepcopy(converted), inputs, quantize="int8", report=report)
    r = {"name": name, "macs": count_macs(model, inputs), "float_ops": sorted({op for op, _ in report["float_ops"]})}
    et_method = et_runtime.load_program(to_edge(torch.export.export(model, inputs)).to_executorch().buffer)
    et_method = et_method.load_method("forward")
    et_method.execute(list(inputs))
    r["et_us"] = median_us(lambda: et_method.execute(list(inputs)), args.repeat * 10)
    lock = not report["float_ops"]
    # 8 MiB: int8 mobilenet_v1_025's load leaves unix's default 2 MiB heap too fragmented for its input
    res = run(pte, inputs, "unix", repeat=args.repeat, heap_lock=lock, heap_bytes=8 << 20)
    r["unix"] = res.stats
    scale = _out_scale(report["reference"])
    with torch.no_grad():
        r["quanta"] = float((res.outputs[0] - converted(*inputs)).abs().max()) / scale
        r["fp32_err"] = float((res.outputs[0] - model(*inputs)).abs().max())
    if not args.no_board:
        r["m3"] = run(pte, inputs, "cortex-m3-large", repeat=1, heap_lock=lock).stats
    if not args.no_wasm:
        r["wasm"] = run(pte, inputs, "wasm", repeat=1, heap_lock=lock).stats
    if name in CLASSIFIERS and args.top1:
        r["top1"] = _top1(model, converted, report["reference"], inputs, args.top1, scale)
    return r


def _heap(s):
    if s is None:
        return "-"
    return "%d%s" % (s["execute_heap_bytes"], " (locked)" if s.get("execute_heap_locked") else "")


def _row(r):
    u, m3, w = r["unix"], r.get("m3"), r.get("wasm")
    top1 = "-"
    if "top1" in r:
        a, f, n, worst = r["top1"]
        top1 = "%.1f%% / %.1f%% (%d; max err %.0f quanta)" % (100.0 * a / n, 100.0 * f / n, n, worst)
    return "| %s | %s | %.0f | %.0f | %.2f | %.2f | %s | %s | %s / %s / %s | %.2f | %s | %.4g | %s |" % (
        r["name"],
        "{:,}".format(r["macs"]),
        r["et_us"],
        u["execute_us"],
        u["execute_us"] / r["et_us"],
        u["execute_us"] * 1000 / r["macs"],
        "%.1f" % (m3["execute_instructions"] / r["macs"]) if m3 else "-",
        "%.0f" % w["execute_us"] if w else "-",
        _heap(u),
        _heap(m3),
        _heap(w),
        r["quanta"],
        top1,
        r["fp32_err"],
        ", ".join(r["float_ops"]) or "none",
    )


HEADER = (
    "| model | MACs | ET fp32 us | unix int8 us | ratio | ns/MAC | m3 instr/MAC | wasm us | "
    "execute heap B unix / m3 / wasm | max err (quanta) vs PT2E | top-1 vs PT2E / vs fp32 (inputs) | "
    "max abs err vs fp32 | float ops |\n|" + "---|" * 13
)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="all")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--top1", type=int, default=1000)
    ap.add_argument("--no-board", action="store_true")
    ap.add_argument("--no-wasm", action="store_true")
    ap.add_argument("--out", default=os.path.join(_HERE, "int8.md"))
    args = ap.parse_args()
    torch.set_num_threads(1)
    from executorch.exir import to_edge
    from executorch.runtime import Runtime

    names = list(MODELS) if args.models == "all" else args.models.split(",")
    rows = []
    print(HEADER, flush=True)
    for name in names:
        r = _measure(name, args, Runtime.get(), to_edge)
        rows.append(_row(r))
        print(rows[-1], flush=True)
        if args.out:  # rewritten after every model: a long run leaves what it measured
            with open(args.out, "w") as f:
                f.write(_markdown(rows, args))


def _markdown(rows, args):
    return (
        "# int8 zoo benchmark (issue 9)\n\n"
        "Written by `python benchmarks/bench_int8.py %s` on %s. Host latencies are medians "
        "(ExecuTorch portable fp32 over %d runs, unix MicroPython int8 over %d) on a machine of 2 cores shared "
        "with other jobs: ratios are from the same run but noisy. Cortex-M3 figures are QEMU instruction counts "
        "(`-icount shift=0`, deterministic). wasm: one run of the pure-Python reference path.\n\n"
        "Accuracy: *max err vs PT2E* is max |unix int8 output - PyTorch's PT2E-converted graph| on the example "
        "input, in units of the output scale. *top-1* compares the host integer reference (the fused graph; "
        "tests/test_quant_zoo.py checks our kernels bit-identical to it on cpython, unix, wasm and the board) "
        "with the PT2E graph and with the fp32 model over random normal inputs (the zoo's weights are random, "
        "not trained: near-ties are frequent, so the fp32 agreement is a pessimistic gap figure). "
        "*execute heap*: bytes allocated during execute(); (locked): execute() ran under heap_lock because "
        "every step is marked allocation-free. Float ops: operators that stayed float between explicit "
        "quantize/dequantize.\n\n%s\n%s\n"
        % (
            " ".join(a for a in ["--models " + args.models, "--repeat %d" % args.repeat, "--top1 %d" % args.top1]),
            datetime.date.today().isoformat(),
            args.repeat * 10,
            args.repeat,
            HEADER,
            "\n".join(rows),
        )
    )


if __name__ == "__main__":
    main()

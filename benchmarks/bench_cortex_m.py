"""Our int8 flow and ExecuTorch's Cortex-M flow side by side on MLPerf Tiny.

The four models of executorch.examples.models.mlperf_tiny (ds_cnn,
mobilenet_v1_025, resnet8, deep_autoencoder) through
- ours: host_tools.export(model, quantize="int8"), kernels mpy_et_quant::;
- ExecuTorch's: CortexMQuantizer -> CortexMPassManager -> to_executorch
  (tests/cortex_m_flow.py), kernels cortex_m:: (portable_kernels/cortex_m/).
Both calibrated on the same 16 uniform [-1, 1) inputs. Per flow:
- accuracy against the fp32 model on N random inputs (default 1,000): top-1
  agreement (classifiers) and the largest absolute output error, from each
  flow's host reference (ours: the lowered int8 graph; ExecuTorch's: the
  transformed edge program), which the device matches bit for bit
  (tests/test_quant_zoo.py, tests/test_cortex_m_*.py);
- .pte size, the board's output against the flow's host reference (0: bit
  for bit), planned arena, runtime RAM on the board beyond the arena
  (heap kept by Program.load + the first load_method), whether execute() ran
  with the heap locked, instructions per inference and per MAC (QEMU
  -icount shift=0), on the smallest board it fits (cortex-m3, else
  cortex-m3-large).
Prints a markdown table; not a pass/fail test.

    python benchmarks/bench_cortex_m.py [MODEL ...] [--n 1000] [--targets cortex-m3,cortex-m3-large]
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import cortex_m_flow  # noqa: E402

from host_tools import export, run  # noqa: E402
from host_tools.analysis.macs import count_macs  # noqa: E402
from host_tools.targets import TargetError  # noqa: E402

CLASSIFIERS = ("ds_cnn", "mobilenet_v1_025", "resnet8")


def programs(name):
    """(model, shape, {flow: (pte, host reference callable)})."""
    model, shape = cortex_m_flow.build(name)
    gen = torch.Generator().manual_seed(0)
    x = cortex_m_flow.sample(shape, gen)
    calibration = [cortex_m_flow.sample(shape, gen) for _ in range(16)]
    et_pte, transformed = cortex_m_flow.export(model, shape, calibration=16, seed=0)
    et_module = transformed.module()
    report = {}
    ours = export(model, (x.contiguous(),), quantize="int8", calibration=[(c.contiguous(),) for c in calibration], report=report)
    our_module = report["graph"].module()

    def first(out):
        return out[0] if isinstance(out, (tuple, list)) else out

    return (
        model,
        shape,
        {
            "ours (mpy_et_quant)": (ours, lambda t: first(our_module(t.contiguous()))),
            "ExecuTorch Cortex-M": (et_pte, lambda t: first(et_module(t))),
        },
    )


def accuracy(name, model, shape, reference, n):
    gen = torch.Generator().manual_seed(1)
    agree, worst = 0, 0.0
    with torch.no_grad():
        for _ in range(n):
            x = cortex_m_flow.sample(shape, gen)
            want = model(x)
            got = reference(x)
            worst = max(worst, (got - want).abs().max().item())
            if name in CLASSIFIERS:
                agree += int(got.argmax() == want.argmax())
    return (agree / n if name in CLASSIFIERS else None), worst


def board(pte, x, targets, macs, want):
    for target in targets:
        try:
            res = run(pte, [x], target=target, repeat=1, heap_lock=True, timeout=3600)
        except TargetError as e:
            last = [ln for ln in str(e).splitlines() if ln.strip()][-1:]
            print("  %s: %s" % (target, last), file=sys.stderr)
            continue
        s = res.stats
        kept = (s.get("program_heap_bytes") or 0) + (s.get("first_load_method_heap_bytes") or 0)
        return {
            "target": target,
            "arena": s["arena_bytes"],
            "ram": kept - s["arena_bytes"],
            "locked": s.get("execute_heap_locked"),
            "instructions": s["execute_instructions"],
            "per_mac": s["execute_instructions"] / macs,
            "diff": (res.outputs[0] - want).abs().max().item(),
        }
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", default=list(cortex_m_flow.MODELS))
    ap.add_argument("--n", type=int, default=1000, help="random inputs for accuracy")
    ap.add_argument("--targets", default="cortex-m3,cortex-m3-large")
    args = ap.parse_args(argv)
    rows = [
        "| model | flow | top-1 = fp32 | max abs error | .pte bytes | board | board - host reference | arena B "
        "| runtime RAM beyond arena B | heap locked | instructions / inference | per MAC |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name in args.models:
        model, shape, flows = programs(name)
        x = cortex_m_flow.sample(shape, torch.Generator().manual_seed(2))
        macs = count_macs(model, (x,))
        for flow, (pte, reference) in flows.items():
            top1, worst = accuracy(name, model, shape, reference, args.n)
            with torch.no_grad():
                want = reference(x)
            b = board(pte, x, args.targets.split(","), macs, want)
            cells = [name, flow, "%.1f%%" % (100 * top1) if top1 is not None else "n/a", "%.4f" % worst, "{:,}".format(len(pte))]
            if b is None:
                cells += ["does not run", "", "", "", "", "", ""]
            else:
                cells += [b["target"], "%.2g" % b["diff"], "{:,}".format(b["arena"]), "{:,}".format(b["ram"])]
                cells += ["yes" if b["locked"] else "no"]
                cells += ["{:,}".format(b["instructions"]), "%.0f" % b["per_mac"]]
            rows.append("| " + " | ".join(cells) + " |")
            print(rows[-1], file=sys.stderr, flush=True)
    print("\n".join(rows))


if __name__ == "__main__":
    main()

"""int8 models on every target next to ExecuTorch's portable runtime running
the fp32 model, measured in the same run. Prints ratios; not a pass/fail test.

Per model: ns/MAC on unix MicroPython (viper conv/linear) and the latency
ratio against ExecuTorch portable fp32 (C++); instructions/MAC on the
emulated Cortex-M3 (viper, armv7m .mpy; QEMU -icount: deterministic); the
WebAssembly latency of the pure-Python reference path; the bytes execute()
allocated and whether it ran under heap_lock.

    python benchmarks/bench_int8.py [--repeat N]
"""

import argparse
import os
import runpy
import sys

import torch
from timing import median_us

from host_tools import export, run
from host_tools.macs import count_macs

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _models():
    sys.path.insert(0, _ROOT)
    from tests.test_quant import MLP, SmallCNN

    ns = runpy.run_path(os.path.join(_ROOT, "host_tools", "examples", "cnn.py"))
    torch.manual_seed(0)
    yield "examples/cnn.py 1x1x28x28 (log_softmax stays float)", ns["model"], (1, 1, 28, 28)
    yield "tests SmallCNN 1x3x16x16 (dw/pw/dilated/add/mean)", SmallCNN().eval(), (1, 3, 16, 16)
    yield "tests MLP 3x20", MLP().eval(), (3, 20)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    torch.set_num_threads(1)
    from executorch.exir import to_edge
    from executorch.runtime import Runtime

    for name, model, shape in _models():
        torch.manual_seed(1)
        inputs = (torch.randn(*shape),)
        calibration = [(torch.randn(*shape),) for _ in range(32)]
        report = {}
        pte = export(model, inputs, quantize="int8", calibration=calibration, report=report)
        et_pte = to_edge(torch.export.export(model, inputs)).to_executorch().buffer
        et_method = Runtime.get().load_program(et_pte).load_method("forward")
        et_method.execute(list(inputs))
        et_us = median_us(lambda m=et_method, x=list(inputs): m.execute(x), args.repeat * 10)
        macs = count_macs(model, inputs)
        print("\n%s: %d MACs, int8 .pte %d bytes; float ops: %s" % (name, macs, len(pte), [op for op, _ in report["float_ops"]] or "none"))
        print("  ExecuTorch portable fp32 (C++): %8.1f us  %6.2f ns/MAC" % (et_us, et_us * 1000 / macs))
        for target in ("unix", "wasm", "cortex-m3"):
            s = run(pte, inputs, target, repeat=args.repeat if target == "unix" else 3, heap_lock=True).stats
            line = "  mpy_et int8 on %-10s %8.1f us" % (target, s["execute_us"])
            if target == "unix":
                line += "  %6.2f ns/MAC  %.2fx ExecuTorch fp32" % (s["execute_us"] * 1000 / macs, s["execute_us"] / et_us)
            elif target == "cortex-m3":
                line += "  %d instructions, %.1f per MAC" % (s["execute_instructions"], s["execute_instructions"] / macs)
            line += "; execute allocated %s B, heap_lock %s" % (s["execute_heap_bytes"], "ok" if s["heap_lock_ok"] else "FAILED")
            print(line)


if __name__ == "__main__":
    main()

"""CNN latency and memory on every target, next to ExecuTorch's runtime and
PyTorch, measured in the same run. Prints ratios; not a pass/fail test.
On the emulated Cortex-M3 board time is an instruction count (QEMU -icount),
the same on every run: instructions per inference and per MAC.

    python benchmarks/bench_cnn.py [--repeat N]
"""

import argparse
import os
import runpy

import torch
from timing import median_us

import mpy_et
from host_tools import export, run
from host_tools.analysis.macs import count_macs

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "host_tools", "examples", "cnn.py")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    torch.set_num_threads(1)
    ns = runpy.run_path(EXAMPLE)
    model, inputs = ns["model"], tuple(ns["example_inputs"])
    pte = export(model, inputs)

    from executorch.exir import to_edge
    from executorch.runtime import Runtime

    et_pte = to_edge(torch.export.export(model, inputs)).to_executorch().buffer
    et_method = Runtime.get().load_program(et_pte).load_method("forward")
    et_method.execute(list(inputs))
    et_us = median_us(lambda: et_method.execute(list(inputs)), args.repeat * 10)
    with torch.no_grad():
        torch_us = median_us(lambda: model(*inputs), args.repeat * 10)

    macs = count_macs(model, inputs)
    print("small CNN 1x1x28x28, %d bytes .pte, %d MACs" % (len(pte), macs))
    print("%-28s %12s %14s" % ("runtime", "execute us", "vs ExecuTorch"))
    print("%-28s %12.1f %14s" % ("PyTorch eager", torch_us, "%.2fx" % (torch_us / et_us)))
    print("%-28s %12.1f %14s" % ("ExecuTorch portable (C++)", et_us, "1.00x"))
    for target in ("cpython", "unix", "wasm", "cortex-m3"):
        s = run(pte, inputs, target, repeat=args.repeat if target != "cortex-m3" else 1, reload=True).stats
        if target == "cortex-m3":
            n = s["execute_instructions"]
            print("%-28s %12s %14s" % ("mpy_et on cortex-m3", "n/a", "(emulated)"))
            print(
                "    %d instructions per inference, %.0f per MAC; heap free %d B before load, %d B after"
                % (n, n / macs, s["heap_free_before_load"], s["heap_free_after_load"])
            )
        else:
            print("%-28s %12.1f %14s" % ("mpy_et on " + target, s["execute_us"], "%.0fx" % (s["execute_us"] / et_us)))
        print(
            "    load %d us; load_method heap kept %s B (first load, importing kernels: %s B); load_method allocated %s B; execute allocated %s B"
            % (
                s["load_us"],
                s["load_method_heap_bytes"],
                s["first_load_method_heap_bytes"],
                s["load_method_alloc_bytes"],
                s["execute_heap_bytes"],
            )
        )
    ours = mpy_et.Program.load(pte).load_method().planned_bytes
    same_rules = mpy_et.Program.load(export(model, inputs, preserve_inputs=False)).load_method().planned_bytes
    theirs = mpy_et.Program.load(et_pte).load_method().planned_bytes
    print("\nplanned arena bytes: ExecuTorch %d; mpy_et %d (%.2fx), inputs preserved across execute()" % (theirs, ours, ours / theirs))
    print(
        "                     mpy_et with ExecuTorch's lifetime rules (preserve_inputs=False): %d (%.2fx)"
        % (same_rules, same_rules / theirs)
    )


if __name__ == "__main__":
    main()

"""int8 convolution speed on the zoo: unix MicroPython (viper) against
ExecuTorch's portable runtime running the fp32 model in the same run, and
instructions per MAC on the emulated Cortex-M3 (QEMU -icount shift=0:
virtual ns = instructions; asm_thumb inner loops there). Prints figures;
not a pass/fail test.

    python benchmarks/bench_int8_conv.py [--models ds_cnn,lenet5] [--repeat N] [--no-board] [--cache DIR] [--ops]

--ops adds, per model, the time each operator takes on unix (us) and on the
board (thousands of instructions): each step timed alone after one execute().
"""

import argparse
import os

import torch
from timing import median_us

from host_tools import export, run
from host_tools.analysis.macs import count_macs
from host_tools.zoo import MODELS, build

CONV_HEAVY = ("ds_cnn", "mobilenet_v1_025", "resnet8", "lenet5", "mobilenet_v2_block", "conv_autoencoder")


def _pte(name, model, inputs, cache):
    path = os.path.join(cache, "q_%s.pte" % name) if cache else None
    if path and os.path.exists(path):
        with open(path, "rb") as f:
            return f.read()
    torch.manual_seed(1)
    calibration = [tuple(torch.randn_like(t) for t in inputs) for _ in range(16)]
    pte = export(model, inputs, quantize="int8", calibration=calibration)
    if path:
        with open(path, "wb") as f:
            f.write(pte)
    return pte


_OPS_CODE = """
import time
from mpy_et.program import Program
m = Program.load(PATH).load_method("forward")
m.execute()
ops = m.step_ops()
tot = {}
for i in range(len(m._steps)):  # private: a benchmark's look inside execute()
    st, c = m._steps[i], m._ctxs[i]
    t0 = time.ticks_us()
    for _ in range(REP):
        st(c)
    k = ops[i][1].split("::")[-1]
    tot[k] = tot.get(k, 0) + time.ticks_diff(time.ticks_us(), t0) / REP
print(" ".join("%s %d" % (k, v) for v, k in sorted([(v, k) for k, v in tot.items()], reverse=True)))
"""


def _op_times(pte, target, repeat):
    from host_tools.targets import run_code

    code = _OPS_CODE.replace("REP", str(repeat))
    if target == "unix":
        import tempfile

        with tempfile.NamedTemporaryFile(suffix=".pte") as f:
            f.write(pte)
            f.flush()
            return run_code(target, code.replace("PATH", repr(f.name)), heap_bytes=8 << 20).strip()
    code = code.replace("PATH", 'DATA_DIR + "/m.pte"')
    return run_code(target, code, files={"m.pte": pte}).strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default=",".join(CONV_HEAVY))
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--no-board", action="store_true")
    ap.add_argument("--cache", default="")
    ap.add_argument("--ops", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(1)
    from executorch.exir import to_edge
    from executorch.runtime import Runtime

    names = list(MODELS) if args.models == "all" else args.models.split(",")
    for name in names:
        model, inputs = build(name)
        pte = _pte(name, model, inputs, args.cache)
        et_pte = to_edge(torch.export.export(model, inputs)).to_executorch().buffer
        et_method = Runtime.get().load_program(et_pte).load_method("forward")
        et_method.execute(list(inputs))
        et_us = median_us(lambda m=et_method, x=list(inputs): m.execute(x), args.repeat * 10)
        macs = count_macs(model, inputs)
        # 8 MiB heap: mobilenet_v1_025's load leaves too little of the default 2 MiB to read its input
        s = run(pte, inputs, "unix", repeat=args.repeat, heap_bytes=8 << 20).stats
        line = "%-20s %9d MACs  ET fp32 %8.1f us  unix int8 %8.1f us %5.2f ns/MAC %5.2fx" % (
            name,
            macs,
            et_us,
            s["execute_us"],
            s["execute_us"] * 1000 / macs,
            s["execute_us"] / et_us,
        )
        if not args.no_board:
            b = run(pte, inputs, "cortex-m3-large", repeat=1).stats
            line += "  cortex-m3 %6.1f instr/MAC" % (b["execute_instructions"] / macs)
        print(line, flush=True)
        if args.ops:
            print("    unix us:", _op_times(pte, "unix", args.repeat), flush=True)
            if not args.no_board:
                print("    cortex-m3 K instr:", _op_times(pte, "cortex-m3-large", 1), flush=True)


if __name__ == "__main__":
    main()

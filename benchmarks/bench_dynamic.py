"""What bounded dynamic shapes cost on a board: the sensor-window example
(host_tools/examples/sensor_window.py, a window of 16..128 samples) exported
with a dynamic window against the same model exported static at each length,
measured in the same run.

    python benchmarks/bench_dynamic.py [--target cortex-m3] [--lengths 128 40 17]

Prints, per window length, the instructions (emulated boards; microseconds
elsewhere) of the set_input() that resizes (the tensors that depend on the
window and the steps prepared again), of a set_input() at the same shape,
and of execute() for the dynamic and the static program, with their ratio.
"""

import argparse
import os
import runpy

import torch

from host_tools import export, run
from host_tools.targets.calls import run_calls

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "host_tools", "examples", "sensor_window.py")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--target", default="cortex-m3")
    p.add_argument("--lengths", type=int, nargs="+", default=[128, 40, 17])
    args = p.parse_args()
    ns = runpy.run_path(EXAMPLE)
    model = ns["model"]
    torch.manual_seed(1)
    windows = [torch.randn(1, 3, t) for t in args.lengths]
    dynamic = export(model, ns["example_inputs"], dynamic_shapes=ns["dynamic_shapes"])
    # each length twice: the first set_input resizes, the second finds the same shape
    calls = [("forward", (w,)) for w in windows for _ in range(2)]
    got = run_calls(dynamic, calls, args.target)
    unit = "instructions" if "execute_instructions" in got[0].stats else "us"
    ex = "execute_instructions" if unit == "instructions" else "execute_us"
    si = "set_input_instructions" if unit == "instructions" else "set_input_us"
    print("%s, %s; dynamic program planned for 128 samples: %d B arena" % (args.target, unit, got[0].stats["arena_bytes"]))
    print("| window | set_input (resize) | set_input (same shape) | set_input static | execute dynamic | execute static | ratio |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for k, w in enumerate(windows):
        static = run_calls(export(model, (w,)), [("forward", (w,))] * 2, args.target)[1].stats
        first, again = got[2 * k].stats, got[2 * k + 1].stats
        print(
            "| %d | %d | %d | %d | %d | %d | %.3f |"
            % (w.shape[2], first[si], again[si], static[si], again[ex], static[ex], again[ex] / static[ex])
        )
    heap = [
        run(pte, [windows[0]], args.target, repeat=1).stats["first_load_method_heap_bytes"]
        for pte in (dynamic, export(model, (windows[0],)))
    ]
    if heap[0] is not None:
        print("load_method heap: dynamic %d B, static (%d samples) %d B" % (heap[0], windows[0].shape[2], heap[1]))
    print("(the first row's resize is the first set_input after load: at the bound nothing changes shape)")


if __name__ == "__main__":
    main()

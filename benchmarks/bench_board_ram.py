"""Issue 18 goal 2: `mpy-et inspect --target` against the board. For every zoo
model (int8, int8 --quantized-io, fp32 where the arena fits): the runtime RAM
beyond the arena predicted on the host (host_tools/analysis/board_ram.py) and
measured by host_tools.run on the board (program + first load_method, kernel
imports included, minus the arena), with the prediction's parts. Prints a
markdown table; not a pass/fail test.

    python benchmarks/bench_board_ram.py [MODEL ...] [--target cortex-m3] [--cache DIR]
"""

import argparse
import os
import sys

from bench_board_zoo import program

from host_tools import inspect, run
from host_tools.targets import TargetError
from host_tools.zoo import MODELS

_HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", default=list(MODELS))
    ap.add_argument("--target", default="cortex-m3")
    ap.add_argument("--cache", default=os.path.join(_HERE, ".board_zoo_cache"))
    args = ap.parse_args(argv)
    print("| model | precision | instructions | measured B | predicted B | error | modules B | registry B | qstr pools B | objects B |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    worst = 0.0
    for name in args.models:
        for precision, qio in (("int8", False), ("int8", True), ("fp32", False)):
            pte, _, inputs = program(name, precision, args.cache, qio)
            p = inspect(pte, target=args.target)["board"]
            label = precision + (" qio" if qio else "")
            try:
                s = run(pte, inputs, args.target, repeat=1, timeout=1800).stats
            except TargetError as e:
                print(
                    "| %s | %s | %d | does not load: %s | %d | | | | | |"
                    % (name, label, p["instructions"], str(e).splitlines()[-1][:60], p["runtime_ram_bytes"])
                )
                continue
            measured = s["program_heap_bytes"] + s["first_load_method_heap_bytes"] - s["arena_bytes"]
            err = (p["runtime_ram_bytes"] - measured) / measured
            worst = max(worst, abs(err))
            print(
                "| %s | %s | %d | %s | %s | %+.1f%% | %s | %s | %s | %s |"
                % (
                    name,
                    label,
                    p["instructions"],
                    format(measured, ","),
                    format(p["runtime_ram_bytes"], ","),
                    100 * err,
                    format(p["module_bytes"], ","),
                    format(p["registry_bytes"], ","),
                    format(p["qstr_pool_bytes"], ","),
                    format(p["method_object_bytes"], ","),
                ),
                flush=True,
            )
    print("\nlargest error: %.1f%%" % (100 * worst))
    return 0


if __name__ == "__main__":
    sys.exit(main())

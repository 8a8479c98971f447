"""Issue 18 goal 3, load-time garbage: does a program still load on the 224 KB
board (`cortex-m3`) when only what its load keeps, plus 16 KB, is free?

Per zoo model (int8 by default): one run measures what Program.load + the
first load_method keep (arena included); a second run allocates a ballast
first (host_tools.run(..., free_at_load=N)) so that only N = kept + 16 KB of
heap is free when the load starts. If the load and the inferences still
succeed, the load's peak (garbage, temporaries, fragmentation included)
stayed within 16 KB of what it keeps. With --search, also the smallest
headroom that still loads (to 1 KB). Prints a markdown table; not a
pass/fail test.

    python benchmarks/bench_load_peak.py [MODEL ...] [--quantized-io] [--precision int8|fp32] [--search]
"""

import argparse
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)

from bench_board_zoo import program  # noqa: E402

from host_tools import run  # noqa: E402
from host_tools.targets import TargetError  # noqa: E402
from host_tools.zoo import MODELS  # noqa: E402


def loads(pte, inputs, free_at_load):
    try:
        run(pte, inputs, "cortex-m3", repeat=1, free_at_load=free_at_load)
        return True
    except TargetError:
        return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*")
    ap.add_argument("--precision", default="int8", choices=["int8", "fp32"])
    ap.add_argument("--quantized-io", action="store_true")
    ap.add_argument("--search", action="store_true", help="also bisect the smallest headroom that loads")
    ap.add_argument("--cache", default=os.path.join(_HERE, ".board_zoo_cache"))
    args = ap.parse_args()
    print("| model | kept by the load B | loads with kept + 16 KB free | smallest headroom that loads B |")
    print("|---|---|---|---|")
    for name in args.models or MODELS:
        pte, _, inputs = program(name, args.precision, args.cache, args.quantized_io)
        try:
            s = run(pte, inputs, "cortex-m3", repeat=1).stats
        except TargetError as e:
            print("| %s | does not load: %s | | |" % (name, str(e).splitlines()[-1][:80]))
            continue
        kept = (s.get("program_heap_bytes") or 0) + (s.get("first_load_method_heap_bytes") or 0)
        ok = loads(pte, inputs, kept + 16384)
        least = ""
        if args.search:
            lo, hi = 0, 16384 if ok else min(s["heap_free_before_load"] - kept, 131072)
            while hi - lo > 1024:
                mid = (lo + hi) // 2
                lo, hi = (lo, mid) if loads(pte, inputs, kept + mid) else (mid, hi)
            least = "{:,}".format(hi)
        print("| %s | %s | %s | %s |" % (name, "{:,}".format(kept), "yes" if ok else "**no**", least))
        sys.stdout.flush()


if __name__ == "__main__":
    main()

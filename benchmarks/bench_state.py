"""What state costs on a board: the streaming example (host_tools/examples/streaming.py)
as a stateful program (buffers updated in place, kept in planned memory) against
the same computation with its state passed in and out as tensors (the caller
keeps it), measured in the same run.

    python benchmarks/bench_state.py [--target cortex-m3] [--calls 4]

Prints instructions (emulated boards) or microseconds per execute() for both,
their ratio, the state bytes and what reset_state() costs.
"""

import argparse
import os
import runpy

import torch

from host_tools import export
from host_tools.targets.calls import run_calls

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "host_tools", "examples", "streaming.py")


class Functional(torch.nn.Module):
    """StreamingIMU's forward with its three buffers as inputs and outputs."""

    def __init__(self, stateful):
        super().__init__()
        self.conv, self.fc = stateful.conv, stateful.fc

    def forward(self, sample, window, smoothed, count):
        window = torch.cat([window[:, :, 1:], sample], dim=2)
        logits = self.fc(torch.relu(self.conv(window)).mean(dim=2))
        smoothed = smoothed * 0.75 + logits * 0.25
        return smoothed, count + 1, window


def _median(xs):
    return sorted(xs)[len(xs) // 2]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--target", default="cortex-m3")
    p.add_argument("--calls", type=int, default=4)
    args = p.parse_args()
    ns = runpy.run_path(EXAMPLE)
    model, sample = ns["model"], ns["example_inputs"][0]
    calls = [("forward", (sample,))] * args.calls + [("forward", "reset_state")]
    stateful = run_calls(export(model, (sample,)), calls, args.target)
    state = [b.detach().clone() for _, b in model.named_buffers()]
    # the same harness (a collection before each call), so both are timed alike
    functional = run_calls(export(Functional(model), (sample, *state)), [("forward", (sample, *state))] * args.calls, args.target)
    unit = "instructions" if "execute_instructions" in functional[0].stats else "us"
    key = "execute_instructions" if unit == "instructions" else "execute_us"
    with_state = _median([r.stats[key] for r in stateful[:-1]])
    passed = _median([r.stats[key] for r in functional])
    print("%s, %s per execute() (median of %d):" % (args.target, unit, args.calls))
    print("  state in planned memory (buffers updated in place): %d" % with_state)
    print("  state passed in and out as tensors:                 %d" % passed)
    print("  ratio: %.3f" % (with_state / passed))
    print("  state: %d bytes; reset_state(): %d %s" % (stateful[0].stats["state_bytes"], stateful[-1].stats[key], unit))


if __name__ == "__main__":
    main()

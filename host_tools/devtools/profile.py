"""Per-instruction and per-operator profiles from an EventTracer's ticks.

A device run with an event tracer (host_tools.run(..., profile=True)) brings
back, per profiled execute(), the ticks [execute start, step 0 start, step 0
end, ..., execute end] and the steps' (instruction, operator) pairs
(mpy_et/event_tracer.py; a method with jumps brings each step's total
ticks and run count instead). `from_trace` turns them into a Profile (medians
over the runs, shares, MACs, cost per MAC) and ETDump bytes; `table` and
`plot` show it (`mpy-et profile`).

Times are kept in nanoseconds (ticks are microseconds). On the emulated
boards (QEMU -icount shift=0) a nanosecond is one board instruction, so
there the unit shown is "instructions".
"""

from dataclasses import dataclass, field

from host_tools.devtools import etdump
from mpy_et.errors import INVALID_ARGUMENT, MpyEtError

_TICK_NS = 1000  # EventTracer ticks are port.ticks_us() microseconds
_TICKS_PERIOD = 1 << 30  # time.ticks_us wraps here on 32-bit ports (64-bit ones never get there)


@dataclass
class Profile:
    """Median times over the profiled runs.

    instructions: one dict per step in execution order: instruction, operator,
        time (in `unit`), share (of execute), macs (0 if not a product),
        per_mac (time / macs, or None).
    operators: one dict per operator, most time first: operator, calls, time,
        share, macs, per_mac.
    execute: the whole execute() (tracer and dispatch loop included).
    overhead: execute minus the steps' times (dispatch loop and tracer).
    unit: "instructions" (emulated boards) or "us"; per_mac is instructions
        per MAC on boards, ns per MAC elsewhere.
    """

    target: str
    unit: str
    runs: int
    execute: float
    overhead: float
    instructions: list = field(default_factory=list)
    operators: list = field(default_factory=list)

    def table(self, top=None):
        """The per-operator and per-instruction tables as text (`top`: the
        operators and instructions taking most time; default all, the
        instructions in execution order)."""
        u = "instr" if self.unit == "instructions" else "us"
        per = "instr/MAC" if self.unit == "instructions" else "ns/MAC"
        w = max([len(r["operator"]) + 5 for r in self.operators] + [26])
        head = "%-*s %5s %14s %7s %12s %10s"
        lines = [
            "%s: execute() %s %s (median of %d profiled runs)" % (self.target, _num(self.execute), self.unit, self.runs),
            "",
            head % (w, "operator", "calls", u, "share", "MACs", per),
        ]
        for row in self.operators[:top]:
            lines.append(_row(w, row["operator"], row["calls"], row))
        lines.append(_row(w, "(dispatch loop and tracer)", "", {"time": self.overhead, "share": self.overhead / self.execute, "macs": 0}))
        lines += ["", head % (w, "instruction", "", u, "share", "MACs", per)]
        rows = sorted(self.instructions, key=lambda r: -r["time"])[:top] if top else self.instructions
        for row in rows:
            lines.append(_row(w, "%4d %s" % (row["instruction"], row["operator"]), "", row))
        return "\n".join(lines)

    def as_dict(self):
        return {
            "target": self.target,
            "unit": self.unit,
            "runs": self.runs,
            "execute": self.execute,
            "overhead": self.overhead,
            "operators": self.operators,
            "instructions": self.instructions,
        }


def _num(x):
    if x == int(x):
        return "{:,}".format(int(x))
    return "{:,.0f}".format(x) if abs(x) >= 100 else "{:,.1f}".format(x)


def _row(width, name, calls, row):
    per = row.get("per_mac")
    macs = row["macs"]
    return "%-*s %5s %14s %6.1f%% %12s %10s" % (
        width,
        name,
        calls,
        _num(row["time"]),
        100.0 * row["share"],
        "{:,}".format(macs) if macs else "",
        "" if per is None else "%.2f" % per,
    )


def _median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def _unwrapped(ticks, base, prev):
    """ns since `base` of each tick (ticks_us wraps at 2**30 on 32-bit ports)."""
    out = []
    for t in ticks:
        prev_ns = out[-1] if out else base
        out.append(prev_ns + ((t - prev) % _TICKS_PERIOD) * _TICK_NS)
        prev = t
    return out


def from_trace(traces, steps, target, macs=None, method="forward", debug=None, totals=False):
    """(Profile, ETDump bytes) of profiled runs.

    Args:
        traces: per run, the tracer's ticks (2 * len(steps) + 2 ints).
        steps: [(instruction index, operator name)] in execution order.
        target: the target name (boards count instructions).
        macs: dict instruction index -> MACs (host_tools.analysis.macs.instruction_macs).
        method: method name (the ETDump's RunData name).
        debug: the last run's captured outputs for the ETDump (etdump.write's debug).
        totals: the runs hold, per step, the ticks spent in it in all and
            how many times it ran (a method with jumps: EventTracer.totals);
            each step that ran is one ETDump event spanning its total.
    """
    from host_tools.targets import BOARD_TARGETS

    if not traces:
        raise MpyEtError(INVALID_ARGUMENT, "no profiled runs")
    per_run = 2 * len(steps) + 2
    runs, spans, loops, durations = [], [], [], [[] for _ in steps]
    prev, base = traces[0][0], 0
    for r, ticks in enumerate(traces):
        if len(ticks) != per_run:
            raise MpyEtError(INVALID_ARGUMENT, "profiled run %d has %d ticks; %d steps need %d" % (r, len(ticks), len(steps), per_run))
        if totals:
            ns = _unwrapped((ticks[0], ticks[-1]), base, prev)
            ns = [ns[0]] + [0] * (2 * len(steps)) + [ns[1]]
        else:
            ns = _unwrapped(ticks, base, prev)
        prev, base = ticks[-1], ns[-1]
        events = []
        at = ns[0]
        for j, (instruction, op) in enumerate(steps):
            if totals:  # one event spanning the step's total, after the previous step's
                start, end = at, at + ticks[1 + 2 * j] * _TICK_NS
                at = end
                if ticks[2 + 2 * j]:
                    events.append((op, instruction, start, end))
            else:
                start, end = ns[1 + 2 * j], ns[2 + 2 * j]
                events.append((op, instruction, start, end))
            durations[j].append(end - start)
        events.append((etdump.EXECUTE_EVENT, -1, ns[0], ns[-1]))
        spans.append(ns[-1] - ns[0])
        loops.append(ns[-1] - ns[0] - sum(e[3] - e[2] for e in events[:-1]))
        runs.append(events)
    boards = target in BOARD_TARGETS
    scale = 1 if boards else 1.0 / _TICK_NS  # ns -> instructions (QEMU icount) or us
    execute = _median(spans) * scale
    macs = macs or {}
    rows, by_op = [], {}
    for j, (instruction, op) in enumerate(steps):
        t = _median(durations[j]) * scale
        m = macs.get(instruction, 0)
        rows.append({"instruction": instruction, "operator": op, "time": t, "macs": m})
        agg = by_op.setdefault(op, {"operator": op, "calls": 0, "time": 0, "macs": 0})
        agg["calls"] += 1
        agg["time"] += t
        agg["macs"] += m
    ops = sorted(by_op.values(), key=lambda a: -a["time"])
    per_mac = 1 if boards else _TICK_NS  # instructions per MAC, or ns (from us) per MAC
    for row in rows + ops:
        row["share"] = row["time"] / execute if execute else 0.0
        row["per_mac"] = row["time"] * per_mac / row["macs"] if row["macs"] else None
    profile = Profile(target, "instructions" if boards else "us", len(traces), execute, _median(loops) * scale, rows, ops)
    return profile, etdump.write(runs, method, debug)

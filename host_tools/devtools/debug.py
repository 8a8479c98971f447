"""Numeric debugger: each instruction's output on a target against the value
the PyTorch graph computes for the node it came from (`mpy-et debug`).

The program is exported with its graph kept (export(..., report=...):
"graph", "instruction_nodes"), run on the target once with an event tracer
capturing every step's outputs (EventTracer(capture=True)), and the graph
is run on the host by torch.fx's Interpreter, keeping every node's value.

fp32: per layer, max |device - PyTorch| and the SQNR (dB) of the device's
output against PyTorch's. int8: per layer against the host integer
reference of the same program (the int8 graph's own kernels: equal, or the
number of values that differ), each layer's dequantized output against the
fp32 model's activation (SQNR, debug_int8.py), and the float output's SQNR
against the fp32 model. The first layer whose error jumps (fp32: relative error over 1e-5
and 10 times the largest before it; int8: any difference) is marked.
"""

import math
from dataclasses import dataclass, field

import torch

from host_tools.devtools.values import node_values, sqnr_db  # noqa: F401 (debug's public names too)
from mpy_et.errors import INVALID_ARGUMENT, MpyEtError

_JUMP = 10.0  # an error this many times the largest before it is a jump
_FLOOR = 1e-5  # fp32 relative errors below this are rounding, not a jump
_DROP_DB = 10.0  # int8: an SQNR this far below the layer's before it marks a layer that loses accuracy
_HOST_HEAP = 64 << 20  # MicroPython heap on the host ports: room for every intermediate output


@dataclass
class DebugReport:
    """rows: per step {"instruction", "operator", "node", "max_abs", "sqnr_db"
    (int8: the layer's dequantized output against the fp32 model's
    activation, host_tools/devtools/debug_int8.py; None where unmatched),
    "rel", "mismatches" (int8: values that differ from the reference), "numel"}.
    first_jump: index in rows of the first layer whose error jumps, or None.
    output_sqnr_db: int8 programs, the output's SQNR against the fp32 model.
    sqnr_drop: int8, index in rows of the first layer whose SQNR against the
        fp32 model is 10 dB or more below the layer's before it, or None."""

    target: str
    precision: str
    rows: list = field(default_factory=list)
    first_jump: int = None
    output_sqnr_db: float = None
    sqnr_drop: int = None

    def table(self):
        lines = []
        if self.precision == "int8":
            head = "%-6s %-40s %-24s %10s %10s %16s"
            lines.append(head % ("instr", "operator", "graph node", "differ", "max |diff|", "SQNR vs fp32 dB"))
            for k, r in enumerate(self.rows):
                mark = "  <-- first difference" if k == self.first_jump else ""
                if k == self.sqnr_drop:
                    mark += "  <-- SQNR drops"
                lines.append(
                    "%-6d %-40s %-24s %10s %10s %16s%s"
                    % (
                        r["instruction"],
                        r["operator"],
                        r["node"],
                        "%d/%d" % (r["mismatches"], r["numel"]),
                        _g(r["max_abs"]),
                        _db(r["sqnr_db"]),
                        mark,
                    )
                )
            lines.append("")
            if self.sqnr_drop is not None:
                r = self.rows[self.sqnr_drop]
                lines.append("quantization: SQNR against fp32 drops at instruction %d (%s)" % (r["instruction"], r["node"]))
            lines.append(
                "%s: %s against the host integer reference; output SQNR against the fp32 model: %s"
                % (
                    self.target,
                    "every layer equal"
                    if self.first_jump is None
                    else "first difference at instruction %d" % self.rows[self.first_jump]["instruction"],
                    "n/a" if self.output_sqnr_db is None else "%.1f dB" % self.output_sqnr_db,
                )
            )
            return "\n".join(lines)
        head = "%-6s %-32s %-28s %12s %12s %10s"
        lines.append(head % ("instr", "operator", "graph node", "max |diff|", "rel. error", "SQNR dB"))
        for k, r in enumerate(self.rows):
            mark = "  <-- error jumps here" if k == self.first_jump else ""
            lines.append(
                "%-6d %-32s %-28s %12s %12s %10s%s"
                % (r["instruction"], r["operator"], r["node"], _g(r["max_abs"]), _g(r["rel"]), _db(r["sqnr_db"]), mark)
            )
        lines.append("")
        lines.append(
            "%s: %s"
            % (
                self.target,
                "no layer's error jumps (all within rounding)"
                if self.first_jump is None
                else "error jumps at instruction %d (%s)" % (self.rows[self.first_jump]["instruction"], self.rows[self.first_jump]["node"]),
            )
        )
        return "\n".join(lines)


def _g(x):
    return "n/a" if x is None else "%.3g" % x


def _db(x):
    return "n/a" if x is None else ("inf" if math.isinf(x) else "%.1f" % x)


def first_drop(dbs, step=_DROP_DB):
    """Index of the first SQNR (dB; None = not measured) at least `step`
    below the one measured before it (a jump, not a slow drift), or None."""
    prev = None
    for k, db in enumerate(dbs):
        if db is None:
            continue
        if prev is not None and db <= prev - step:
            return k
        prev = db
    return None


def compare(steps, nodes, values, precision):
    """Rows of DebugReport and the first jump, from captured steps
    (host_tools.run(..., capture=True).intermediates), each instruction's
    node names and the graph's node values."""
    rows, worst, jump = [], 0.0, None
    for step in steps:
        names = nodes[step["instruction"]]
        got, name = step["outputs"][0], names[0]
        ref = values.get(name)
        if isinstance(ref, (tuple, list)):  # a node with several outputs: the first
            ref = ref[0]
        if not isinstance(ref, torch.Tensor) or tuple(ref.shape) != tuple(got.shape):
            raise MpyEtError(
                INVALID_ARGUMENT, "instruction %d: no graph value of shape %s for node %s" % (step["instruction"], list(got.shape), name)
            )
        ref = ref.to(got.dtype) if not got.dtype.is_floating_point else ref
        diff = (got.double() - ref.double()).abs()
        max_abs = float(diff.max()) if diff.numel() else 0.0
        row = {"instruction": step["instruction"], "operator": step["operator"], "node": name, "max_abs": max_abs, "numel": got.numel()}
        if precision == "int8":
            row["mismatches"] = int((diff != 0).sum())
            row["rel"] = row["sqnr_db"] = None
            if row["mismatches"] and jump is None:
                jump = len(rows)
        else:
            scale = float(ref.double().abs().max()) if ref.numel() else 0.0
            row["rel"] = max_abs / scale if scale else max_abs
            row["sqnr_db"] = sqnr_db(ref, got)
            row["mismatches"] = None
            if jump is None and row["rel"] > _FLOOR and row["rel"] > _JUMP * worst:
                jump = len(rows)
            worst = max(worst, row["rel"])
        rows.append(row)
    return rows, jump


def debug(model, inputs, target="cpython", quantize=None, calibration=None, timeout=600):
    """Run a model's program on a target, keeping every layer's output, and
    compare each with PyTorch's graph (int8: the host integer reference).

    Args:
        model, inputs: as host_tools.export.
        target: one of host_tools.targets.TARGETS (the program's
            intermediates must fit the board's heap next to the program).
        quantize, calibration: as host_tools.export (int8).
    Returns:
        DebugReport.
    """
    from host_tools import export, run

    report = {}
    inputs = tuple(inputs)
    program_model, quantizers = model, None
    if quantize:  # converted here, so its quantize nodes (scales) are at hand for the fp32 comparison
        from host_tools.devtools.debug_int8 import activation_quantizers
        from host_tools.quantize.pt2e import quantize_pt2e_int8

        program_model = quantize_pt2e_int8(model, inputs, calibration)
        quantizers = activation_quantizers(program_model, inputs)  # before export: fusing rewrites the graph
    pte = export(program_model, inputs, quantize=quantize, calibration=calibration, report=report)
    values = node_values(report["graph"], inputs)
    heap = _HOST_HEAP if target in ("unix", "circuitpython") else None  # every intermediate at once
    res = run(pte, inputs, target, repeat=1, profile=1, capture=True, timeout=timeout, heap_bytes=heap)
    precision = "int8" if quantize else "fp32"
    rows, jump = compare(res.intermediates, report["instruction_nodes"], values, precision)
    out = DebugReport(target, precision, rows, jump)
    if quantize:
        from host_tools.devtools.debug_int8 import fp32_values, layer_sqnr

        per_layer = layer_sqnr(res.intermediates, quantizers, fp32_values(model, inputs))
        for row, db in zip(rows, per_layer):
            row["sqnr_db"] = db
        out.sqnr_drop = first_drop(per_layer)
        with torch.no_grad():
            want = model(*inputs)
        want = want[0] if isinstance(want, (tuple, list)) else want
        got = res.outputs[0]
        if got.dtype.is_floating_point and tuple(got.shape) == tuple(want.shape):
            out.output_sqnr_db = sqnr_db(want, got)
    return out

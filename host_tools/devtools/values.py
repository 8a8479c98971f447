"""What the numeric debugger's fp32 and int8 sides share (devtools/debug.py,
devtools/debug_int8.py, devtools/etrecord.py): the value of every graph node
on given inputs, and the signal-to-quantization-noise ratio."""

import math

import torch


def node_values(graph, inputs):
    """{node name: value} of every node of an ExportedProgram run on `inputs`."""
    return module_values(graph.module(), inputs)


def module_values(gm, inputs):
    """{node name: value} of every node of a GraphModule run on `inputs`."""
    values = {}

    class Recorder(torch.fx.Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            values[n.name] = out
            return out

    with torch.no_grad():
        Recorder(gm).run(*inputs)
    return values


def sqnr_db(ref, got):
    """10 log10(|ref|^2 / |got - ref|^2) (inf when equal)."""
    ref, got = ref.double(), got.double()
    noise = float(((got - ref) ** 2).sum())
    signal = float((ref**2).sum())
    if noise == 0:
        return math.inf
    return 10 * math.log10(signal / noise) if signal > 0 else -math.inf

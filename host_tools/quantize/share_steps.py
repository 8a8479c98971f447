"""One set of quantization parameters per recurrent cell, shared by its time steps.

A recurrent layer unrolled before prepare (pt2e._unrolling) repeats the same
ops once per time step. Observed one by one, every step's ops get their own
scales, so the program stores requantization parameters per step and the
cell's weights cannot be requantized the same way at every step. Here the
output observer of each op of step t > 0 is shared with the same op of step
t - 1 (SharedQuantizationSpec; PT2E joins the chain into one observer that
sees every step), as TFLite's unrolled LSTMs share one scale per gate.

Steps are found from the graph's structure, not from names: the recurrent
projection (a weighted op whose weight is used by several of them, evenly
spaced in graph order) marks the period p; node i is matched with node
i - p only if both have the same target and each argument of one is the same
value as the other's or the node p positions earlier (the previous step's
corresponding node). Nodes whose output is not observed by `act` itself
(fixed-parameter tables, shape ops that already share their input's) are
left alone.
"""

import torch

from host_tools.quantize.op_sets import WEIGHTED


def _periods(nodes, index):
    """(first, last, period) of each evenly spaced recurrent projection."""
    by_weight = {}
    for n in nodes:
        if n.target in WEIGHTED and len(n.args) > 1:
            by_weight.setdefault(n.args[1], []).append(index[n])
    out = []
    for pos in by_weight.values():
        if len(pos) < 2:
            continue
        p = pos[1] - pos[0]
        if p > 0 and all(b - a == p for a, b in zip(pos, pos[1:])):
            out.append((pos[0], pos[-1], p))
    return out


def _corresponds(a, b, index, p):
    """Argument a of a step's node matches argument b of the previous step's."""
    if isinstance(a, torch.fx.Node) and isinstance(b, torch.fx.Node):
        return a is b or (a in index and b in index and index[a] - index[b] == p)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_corresponds(x, y, index, p) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def share_across_steps(graph, act, shared_spec, annotation_key="quantization_annotation"):
    """Make each time step's observed outputs share the previous step's
    observer. Returns the number of nodes changed.

    Args:
        graph: the annotated torch.fx.Graph (before prepare_pt2e).
        act: the activation QuantizationSpec an observed output uses.
        shared_spec: torchao's SharedQuantizationSpec class.
    """
    nodes = [n for n in graph.nodes if n.op == "call_function"]
    index = {n: i for i, n in enumerate(nodes)}
    changed = 0
    for first, last, p in _periods(nodes, index):
        for i in range(first + 1, min(last + p, len(nodes))):
            j = i - p
            if j < 0:
                continue
            a, b = nodes[i], nodes[j]
            ann_a, ann_b = a.meta.get(annotation_key), b.meta.get(annotation_key)
            if ann_a is None or ann_b is None or ann_a.output_qspec is not act or ann_b.output_qspec is None:
                continue
            if a.target is not b.target or len(a.args) != len(b.args) or a.kwargs != b.kwargs:
                continue
            if not all(_corresponds(x, y, index, p) for x, y in zip(a.args, b.args)):
                continue
            ann_a.output_qspec = shared_spec(b)
            changed += 1
    return changed

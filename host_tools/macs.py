"""Multiply-accumulate counts of a model, for per-MAC cost figures."""

import torch

_aten = torch.ops.aten


def _numel(shape):
    n = 1
    for s in shape:
        n *= int(s)
    return n


def count_macs(model, example_inputs):
    """MACs of one forward pass: convolutions and matrix products (core ATen).

    Args:
        model: a torch.nn.Module.
        example_inputs: tuple of example tensors.
    Returns:
        int.
    """
    from host_tools.export import capture

    total = 0
    for node in capture(model, example_inputs).graph.nodes:
        if node.op != "call_function":
            continue
        out = node.meta.get("val")
        if node.target == _aten.convolution.default:
            weight = node.args[1].meta["val"]
            # each output element: in_channels/groups x kernel taps
            total += _numel(out.shape) * _numel(weight.shape[1:])
        elif node.target in (_aten.addmm.default, _aten.mm.default, _aten.bmm.default):
            a = node.args[-2 if node.target == _aten.addmm.default else 0].meta["val"]
            total += _numel(out.shape) * int(a.shape[-1])
    return total

"""Multiply-accumulate counts of a model, for per-MAC cost figures."""

import torch

_aten = torch.ops.aten


def _numel(shape):
    n = 1
    for s in shape:
        n *= int(s)
    return n


def _products(model, example_inputs):
    """(output elements, terms summed per element) of each convolution and
    matrix product in the core-ATen graph."""
    from host_tools.export import capture

    for node in capture(model, example_inputs).graph.nodes:
        if node.op != "call_function":
            continue
        out = node.meta.get("val")
        if node.target == _aten.convolution.default:
            weight = node.args[1].meta["val"]  # in_channels/groups x kernel taps per output
            yield _numel(out.shape), _numel(weight.shape[1:])
        elif node.target in (_aten.addmm.default, _aten.mm.default, _aten.bmm.default):
            a = node.args[-2 if node.target == _aten.addmm.default else 0].meta["val"]
            yield _numel(out.shape), int(a.shape[-1])


def count_macs(model, example_inputs):
    """MACs of one forward pass: convolutions and matrix products (core ATen).

    Args:
        model: a torch.nn.Module.
        example_inputs: tuple of example tensors.
    Returns:
        int.
    """
    return sum(n * k for n, k in _products(model, example_inputs))


def longest_reduction(model, example_inputs):
    """The most terms any one output element of a convolution or matrix
    product sums (1 if there is none): what bounds rounding error growth."""
    return max((k for _, k in _products(model, example_inputs)), default=1)

"""Fold inference batch norm into the convolution or linear layer before it.

A graph pass over a core-ATen ExportedProgram (after run_decompositions):

    convolution(x, W, b) -> _native_batch_norm_legit_no_training(mean, var, gamma, beta, eps)
    becomes convolution(x, W * s, (b - mean) * s + beta),  s = gamma / sqrt(var + eps)

per output channel (transposed convolutions too: their output channels are
weight dim 1 within each group), and the same for a linear layer lowered to
addmm(b, x, W.t()) or mm(x, W.t()) feeding a BatchNorm1d over its features.

The folded weight and bias are new graph nodes computed from the constants
(parameters and buffers) in float64; lowering's constant folding evaluates
them at export, so no parameter is added and the program keeps one kernel
call where it had two. A batch norm is left alone (and runs as the
_native_batch_norm_legit_no_training kernel) when its input is not such a
layer, when that layer's output is used elsewhere too, when its weights or
statistics are not constants, or when its saved mean/invstd are used.
"""

import operator

import torch

_aten = torch.ops.aten
_BN = _aten._native_batch_norm_legit_no_training.default


class _Graph:
    def __init__(self, ep):
        self.graph = ep.graph
        sig = ep.graph_signature
        self.constant_inputs = set(sig.inputs_to_parameters) | set(sig.inputs_to_buffers) | set(sig.inputs_to_lifted_tensor_constants)
        self._const = {}

    def is_constant(self, node):
        """True if node's value does not depend on the program's inputs."""
        if node is None:
            return True
        if node not in self._const:
            if node.op == "placeholder":
                self._const[node] = node.name in self.constant_inputs
            elif node.op == "call_function":
                self._const[node] = all(self.is_constant(a) for a in node.all_input_nodes)
            else:
                self._const[node] = False
        return self._const[node]

    def call(self, target, *args):
        return self.graph.call_function(target, args)

    def f64(self, node):
        return self.graph.call_function(_aten._to_copy.default, (node,), {"dtype": torch.float64})

    def cast(self, node, dtype):
        return self.graph.call_function(_aten._to_copy.default, (node,), {"dtype": dtype})


def fold_batch_norm(ep):
    """Fold every foldable inference batch norm of ep in place.

    Args:
        ep: a torch.export.ExportedProgram after run_decompositions().
    Returns:
        The number of batch norms folded.
    """
    g = _Graph(ep)
    folded = 0
    for bn in list(ep.graph.nodes):
        if bn.op == "call_function" and bn.target is _BN and _fold(g, bn):
            folded += 1
    ep.graph.eliminate_dead_code()  # the batch norms folded, and nodes of any rewrite given up
    ep.graph.lint()
    ep.graph_module.recompile()
    return folded


def _fold(g, bn):
    layer, gamma, beta, mean, var = bn.args[:5]
    eps = bn.args[6]
    getitems = list(bn.users)
    if any(u.target is not operator.getitem for u in getitems):
        return False
    if any(u.args[1] != 0 and u.users for u in getitems):
        return False  # saved mean / invstd are used
    if not isinstance(layer, torch.fx.Node) or len(layer.users) != 1 or layer.op != "call_function":
        return False
    if not all(g.is_constant(n) for n in (gamma, beta, mean, var)):
        return False
    if layer.target is _aten.convolution.default:
        rewrite = _conv
    elif layer.target in (_aten.addmm.default, _aten.mm.default) and len(layer.meta["val"].shape) == 2:
        rewrite = _linear
    else:
        return False
    with g.graph.inserting_before(layer):
        if not rewrite(g, layer, _scale_shift(g, gamma, beta, mean, var, eps)):
            return False
    for u in getitems:
        if u.args[1] == 0:
            u.replace_all_uses_with(layer)
    return True


def _scale_shift(g, gamma, beta, mean, var, eps):
    """Nodes for s = gamma / sqrt(var + eps) and t = beta - mean * s (float64)."""
    s = g.call(_aten.rsqrt.default, g.call(_aten.add.Scalar, g.f64(var), eps))
    if gamma is not None:
        s = g.call(_aten.mul.Tensor, s, g.f64(gamma))
    t = g.call(_aten.neg.default, g.call(_aten.mul.Tensor, g.f64(mean), s))
    if beta is not None:
        t = g.call(_aten.add.Tensor, t, g.f64(beta))
    return s, t


def _new_bias(g, bias, s, t, dtype):
    """(bias * s + t) cast to dtype; t alone without a bias."""
    if bias is None:
        return g.cast(t, dtype)
    return g.cast(g.call(_aten.add.Tensor, g.call(_aten.mul.Tensor, g.f64(bias), s), t), dtype)


def _conv(g, conv, st):
    x, w, bias = conv.args[:3]
    transposed, groups = conv.args[6], conv.args[8]
    if not g.is_constant(w) or not g.is_constant(bias):
        return False
    s, t = st
    shape = list(w.meta["val"].shape)
    dtype = w.meta["val"].dtype
    k = [1] * (len(shape) - 2)
    wf = g.f64(w)
    if transposed:  # weight (in, out / groups, k...): scale dim 1 within each group
        wg = g.call(_aten.view.default, wf, [groups, shape[0] // groups] + shape[1:])
        sv = g.call(_aten.view.default, s, [groups, 1, shape[1]] + k)
        scaled = g.call(_aten.view.default, g.call(_aten.mul.Tensor, wg, sv), shape)
    else:  # weight (out, in / groups, k...)
        scaled = g.call(_aten.mul.Tensor, wf, g.call(_aten.view.default, s, [shape[0], 1] + k))
    args = list(conv.args)
    args[1] = g.cast(scaled, dtype)
    args[2] = _new_bias(g, bias, s, t, dtype)
    conv.args = tuple(args)
    return True


def _linear(g, node, st):
    """addmm(bias, x, wt) / mm(x, wt), wt of shape (in, out): scale the columns."""
    if node.target is _aten.addmm.default:
        bias, x, wt = node.args[:3]
        if len(node.args) > 3 or node.kwargs:
            return False  # beta / alpha other than 1
    else:
        bias, (x, wt) = None, node.args
    if not g.is_constant(wt) or not g.is_constant(bias):
        return False
    s, t = st
    dtype = wt.meta["val"].dtype if "val" in wt.meta else node.meta["val"].dtype
    scaled = g.cast(g.call(_aten.mul.Tensor, g.f64(wt), s), dtype)
    node.target = _aten.addmm.default
    node.args = (_new_bias(g, bias, s, t, dtype), x, scaled)
    return True

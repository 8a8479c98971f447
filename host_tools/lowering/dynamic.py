"""Bounded dynamic shapes at export (ExecuTorch's DYNAMIC_BOUND).

`export(..., dynamic_shapes=...)` captures with torch.export's Dims; every
tensor whose shape has a symbolic dim is written with its upper bound as
sizes (what the memory plan holds) and shape_dynamism DYNAMIC_BOUND. The
device resizes them at set_input (mpy_et/dynamic.py).

A view of a dynamic tensor cannot be a bare alias (the device would have no
instruction to give it its new shape): it is ExecuTorch's
`executorch_prim::et_view` (no copy: the out is an alias of the same bytes,
its size list has the dynamic dim as -1), or, with more than one dynamic dim,
a squeeze / unsqueeze runs as its *_copy operator. A size computed from a dynamic dim
(`x.shape[2] // 2` in the model) is refused at export with the line using it.
"""

import sympy
import torch

from host_tools.lowering.nodes import UnsupportedOps

_aten = torch.ops.aten

# view op -> the copy op it runs as when its tensor is dynamic (sizes from the node's value)
_RESHAPES = {_aten.view.default, _aten._unsafe_view.default, _aten.reshape.default, _aten.flatten.using_ints}
_COPIES = {
    _aten.squeeze.default: _aten.squeeze_copy.default,
    _aten.squeeze.dim: _aten.squeeze_copy.dim,
    _aten.squeeze.dims: _aten.squeeze_copy.dims,
    _aten.unsqueeze.default: _aten.unsqueeze_copy.default,
    _aten.alias.default: _aten.alias_copy.default,
    _aten.detach.default: _aten.alias_copy.default,
}
SYM_SIZE = _aten.sym_size.int


def is_symbolic(s):
    return isinstance(s, torch.SymInt) and s.node.maybe_as_int() is None


def bound_sizes(val, name):
    """(sizes with each symbolic dim at its upper bound, whether any dim is symbolic)."""
    sizes, dynamic = [], False
    for d, s in enumerate(val.shape):
        if is_symbolic(s):
            dynamic = True
            upper = s.node.shape_env.bound_sympy(s.node.expr).upper
            if not isinstance(upper, sympy.Integer):  # int_oo: a Dim without max
                raise UnsupportedOps(
                    "tensor %s: dim %d (%s) has no upper bound; export it with torch.export.Dim(name, max=...)" % (name, d, s)
                )
            s = int(upper)
        sizes.append(int(s))
    return tuple(sizes), dynamic


ET_VIEW = "executorch_prim::et_view.default"


def view_size(node):
    """The size list of an et_view for a view node: its shape with the one
    dynamic dim as -1; None when more than one dim is dynamic."""
    shape = list(node.meta["val"].shape)
    if sum(1 for s in shape if is_symbolic(s)) > 1:
        return None
    return [-1 if is_symbolic(s) else int(s) for s in shape]


def as_copy(target, node, args):
    """(copy op, args) a view op on a dynamic tensor runs as when it is no et_view."""
    if target in _RESHAPES:
        shape = list(node.meta["val"].shape)
        symbolic = [d for d, s in enumerate(shape) if is_symbolic(s)]
        if len(symbolic) > 1:
            raise UnsupportedOps(
                "%s: a reshape to %s has %d dynamic dims; mpy_et's dynamic view takes one (as -1)" % (node.name, shape, len(symbolic))
            )
        return _aten.view_copy.default, [args[0], [-1 if is_symbolic(s) else int(s) for s in shape]]
    return _COPIES[target], args


def refuse_symbolic(v, type_str):
    """An argument holding a size computed from a dynamic dim."""
    raise UnsupportedOps(
        "an argument (%s: %s) depends on a dynamic dim; mpy_et computes dynamic shapes on the device only through "
        "its operators' shape rules (mpy_et/dynamic.py), not from sizes the model computes" % (type_str, v)
    )

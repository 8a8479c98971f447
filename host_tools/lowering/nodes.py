"""What lowering says about graph nodes and the tensors it makes: where a
node comes from (for messages), the error for what the runtime cannot run,
and Ref, a runtime tensor of the program being built."""

import os
import re

import torch

_TORCH_DIR = os.path.dirname(torch.__file__)
_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)\n\s*(.*)')


class UnsupportedOps(Exception):
    """The model uses operators the runtime has no kernel for."""


def source_of(node):
    """'file.py:12 in forward: code' for the user's line that created node."""
    frames = _FRAME.findall(node.meta.get("stack_trace") or "")
    user = [f for f in frames if not f[0].startswith(_TORCH_DIR)] or frames
    if not user:
        return "<unknown source> (node %s)" % node.name
    path, line, func, code = user[-1]
    return "%s:%s in %s: %s" % (path, line, func, code.strip())


def module_of(node):
    """'features.1 (BatchNorm2d)': the innermost nn.Module that created node
    (from torch.export's nn_module_stack), or '' at the top level."""
    stack = node.meta.get("nn_module_stack") or {}
    for path, cls in reversed(list(stack.values())):
        if path:
            name = cls.__name__ if isinstance(cls, type) else str(cls).rsplit(".", 1)[-1].rstrip("'>")
            return "%s (%s)" % (path, name)
    return ""


def where(node):
    """Where a node comes from, for messages: module path and class, and the user's line."""
    module = module_of(node)
    return "%s, %s" % (module, source_of(node)) if module else source_of(node)


class Ref:
    """A runtime tensor of the program being built: its value index."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index

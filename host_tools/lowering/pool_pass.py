"""Max pooling without an index tensor, when nothing reads the indices.

Core ATen has only max_pool2d_with_indices, whose out variant also writes an
int64 index per output element: twice the bytes of a float32 output, alive at
the pooling step (often the program's peak). When the indices are unused and
the windows tile the input exactly (stride == kernel, no padding, no
dilation, sizes divisible), max pooling is a view and a reduction:

    x[N, C, H, W] -> view [N, C, H/kh, kh, W/kw, kw] -> amax(dims (3, 5))

Both are portable ExecuTorch operators, so the program still runs in
ExecuTorch's runtime; the view costs nothing (an alias of x).
"""

import operator

import torch

_aten = torch.ops.aten


def _pair(v, default):
    v = list(v) if v else list(default)
    return v * 2 if len(v) == 1 else v


def _rewrite(graph, node):
    args = list(node.args) + [None] * (6 - len(node.args))
    x, kernel, stride, padding, dilation, ceil_mode = args[:6]
    kernel = _pair(kernel, ())
    stride = _pair(stride, kernel)
    padding = _pair(padding, (0,))
    dilation = _pair(dilation, (1,))
    val = x.meta.get("val")
    if val is None or stride != kernel or padding != [0, 0] or dilation != [1, 1] or val.dim() not in (3, 4):
        return False
    *lead, h, w = (int(s) for s in val.shape)
    kh, kw = kernel
    if h % kh or w % kw:
        return False
    users = list(node.users)
    if any(u.target is not operator.getitem or u.args[1] != 0 for u in users):
        return False  # the indices are read (or the tuple escapes): keep the op
    shape = lead + [h // kh, kh, w // kw, kw]
    dims = [len(lead) + 1, len(lead) + 3]
    with graph.inserting_before(node):
        view = graph.call_function(_aten.view.default, (x, shape))
        amax = graph.call_function(_aten.amax.default, (view, dims, False))
    for new, out_shape in ((view, shape), (amax, lead + [h // kh, w // kw])):
        new.meta.update({k: v for k, v in node.meta.items() if k in ("stack_trace", "nn_module_stack", "source_fn_stack")})
        new.meta["val"] = torch.empty(out_shape, dtype=val.dtype, device="meta")
    for u in users:
        u.replace_all_uses_with(amax)
        graph.erase_node(u)
    graph.erase_node(node)
    return True


def max_pool_without_indices(ep, supported):
    """Rewrite eligible max_pool2d_with_indices nodes of an ExportedProgram in place.

    Args:
        ep: the core-ATen ExportedProgram.
        supported: operator names the runtime has kernels for; nothing is
            rewritten unless "aten::amax.out" is among them.
    Returns:
        The number of pooling nodes rewritten.
    """
    if "aten::amax.out" not in supported:
        return 0
    graph = ep.graph_module.graph
    count = 0
    for node in list(graph.nodes):
        if node.op == "call_function" and node.target == _aten.max_pool2d_with_indices.default:
            count += _rewrite(graph, node)
    if count:
        graph.lint()
        ep.graph_module.recompile()
    return count

"""Fuser patterns whose integer form works on rows or 256-entry tables:
bmm, softmax, log_softmax, layer norm, elementwise functions of one input
(lut) and int8 -> int8 requantization. Mixed into quantize/lower.py's Fuser, whose
source / _plain_out / attr / replace they use."""

import torch

from host_tools.quantize import ops as quant_ops
from host_tools.quantize import ref as quant_ref
from host_tools.quantize import ref_log_softmax as quant_ref_log_softmax
from host_tools.quantize import ref_norm as quant_ref_norm


def node_arg(node, i, default):
    return node.args[i] if len(node.args) > i else default


def node_shape(node):
    """Shape of a node of the converted graph (ShapeProp ran in fuse())."""
    return list(node.meta["tensor_meta"].shape)


class RowPatterns:
    def bmm(self, node):
        """int8 [B, M, K] @ int8 [B, K, N] (attention's scores and weighted values)."""
        a, b = self.source(node.args[0]), self.source(node.args[1])
        out = self._plain_out(node)
        if a is None or b is None or out is None:
            return False
        q, so, zo, lo, hi = out
        k = node_shape(node.args[0])[2]
        try:
            quant_ref.check_range(torch.tensor([k * 255 * 255]), quant_ref.SMALL, "bmm accumulator bound")
        except quant_ref.QuantRangeError:
            return False  # inner size too long for 30-bit sums: stays float
        m, s, lim = quant_ref.requant_params(a[1] * b[1] / so)
        self.replace(q, quant_ops.op("bmm"), [a[0], b[0], a[2], b[2], m, s, lim, zo, lo, hi], "bmm", source=node)
        return True

    def log_softmax(self, node):
        """log_softmax over one dim -> exp and log tables (host_tools/quantize/ref_log_softmax.py)."""
        src = self.source(node.args[0])
        out = self._plain_out(node)
        if src is None or out is None or node_arg(node, 2, None) not in (None, False) or node.kwargs:
            return False  # dtype= / half_to_float: stays float
        x, sx, zx = src
        q, so, zo = out[:3]
        shape = node_shape(node.args[0])
        dim = int(node.args[1]) % len(shape)
        try:
            made = quant_ref_log_softmax.tables(sx, shape[dim], so)
        except quant_ref.QuantRangeError:
            return False
        if made is None:
            return False
        with self.graph.inserting_before(q):
            consts = [self.attr(made[0], "softmax_table"), self.attr(made[1], "log_table")]
        self.replace(q, quant_ops.op("log_softmax"), [x] + consts + [dim, made[2], zo], "log_softmax", source=node)
        return True

    def layer_norm(self, node):
        """Layer norm over the last dim in integers (host_tools/quantize/ref_norm.py)."""
        src = self.source(node.args[0])
        out = self._plain_out(node)
        if src is None or out is None or len(node_arg(node, 1, [])) != 1 or node.kwargs:
            return False
        x, sx, zx = src
        q, so, zo = out[:3]
        n = int(node.args[1][0])
        gamma, beta = node_arg(node, 2, None), node_arg(node, 3, None)
        gw = self.const(gamma) if gamma is not None else None
        bw = self.const(beta) if beta is not None else None
        if (gamma is not None and gw is None) or (beta is not None and bw is None):
            return False  # weights computed in the graph: stays float
        made = quant_ref_norm.params(gw, bw, float(node_arg(node, 4, 1e-5)), n, sx, so)
        if made is None:
            return False  # outside the integer ranges: stays float (listed in the report)
        with self.graph.inserting_before(q):
            consts = [self.attr(made[0], "requant"), self.attr(made[1], "offsets"), self.attr(made[2], "eps")]
        self.replace(q, quant_ops.op("layer_norm"), [x] + consts + [zx, zo], "layer_norm", source=node)
        return True

    def requantized(self, src, so, zo, before):
        """src (int8 node, scale, zp) in the output's parameters: a table
        lookup (PyTorch's quantize(dequantize(v)), value by value) when they differ."""
        x, sx, zx = src
        if (sx, zx) == (so, zo):
            return src
        table = quant_ref.lut_table(lambda r: r, sx, zx, so, zo)
        lut = quant_ops.op("lut")
        first = self.const(x.args[1]) if isinstance(x, torch.fx.Node) and x.op == "call_function" and x.target == lut else None
        if first is not None:  # a table after a table (a fixed-scale sigmoid's output requantized): one table, the same integers
            x, table = x.args[0], quant_ref.lut(first, table)
        with self.graph.inserting_before(before):
            new = self.graph.call_function(lut, (x, self.attr(table, "lut")))
        self.fused.append("lut (requantize)")
        return new, so, zo

    def lookup(self, node):
        """An elementwise function of one int8 input -> a 256-entry table."""
        src = self.source(node.args[0])
        out = self._plain_out(node)
        if src is None or out is None:
            return False
        x, sx, zx = src
        q, so, zo = out[:3]
        rest, kw = node.args[1:], dict(node.kwargs)
        table = quant_ref.lut_table(lambda r: node.target(r, *rest, **kw), sx, zx, so, zo)
        with self.graph.inserting_before(q):
            t = self.attr(table, "lut")
        self.replace(q, quant_ops.op("lut"), [x, t], "lut (%s)" % node.target._schema.name.split("::")[1], source=node)
        return True

    def softmax(self, node):
        """softmax over one dim -> an exp table per input scale (quant_ref.softmax)."""
        src = self.source(node.args[0])
        out = self._plain_out(node)
        if src is None or out is None or node_arg(node, 2, None) not in (None, False) or node.kwargs:
            return False  # dtype= / half_to_float: stays float
        x, sx, zx = src
        q, so, zo = out[:3]
        shape = node_shape(node.args[0])
        dim = int(node.args[1]) % len(shape)
        levels = round(1.0 / so)
        if abs(levels * so - 1.0) > 1e-9 or not 1 <= levels <= 256:
            return False  # an output scale other than 1/levels: stays float
        try:
            table = quant_ref.softmax_table(sx, shape[dim])
        except quant_ref.QuantRangeError:
            return False
        with self.graph.inserting_before(q):
            t = self.attr(table, "softmax_table")
        self.replace(q, quant_ops.op("softmax"), [x, t, dim, levels, zo], "softmax", source=node)
        return True

"""Fuse PyTorch's converted PT2E graph into mpy_et_quant operators.

In a converted graph every quantized op reads `dequantize(q)` inputs and
feeds `quantize(...)`; this pass replaces each such
dequantize -> op [-> relu/relu6] -> quantize pattern with one integer
operator (host_tools/quantize/ops.py) carrying precomputed requantization
(host_tools/quantize/ref.py). Same-scale ops (flatten, view, permute, cat) run
on the int8 tensors. What is left of PyTorch's quantize/dequantize becomes
mpy_et_quant::quantize_per_tensor / dequantize_per_tensor (integer-only on
the device: threshold search and table lookup), and every op between them
stays float: `fuse()` returns their names for the export report.
"""

import torch

from host_tools.lowering.ir import Instruction
from host_tools.lowering.lower import Lowering, where
from host_tools.quantize import ops as quant_ops
from host_tools.quantize import pack as quant_pack
from host_tools.quantize import ref as quant_ref
from host_tools.quantize.fuse_rows import RowPatterns, node_arg, node_shape
from host_tools.quantize.op_sets import LOG_SOFTMAX, LUT

_aten = torch.ops.aten
_qd = torch.ops.quantized_decomposed
Q = _qd.quantize_per_tensor.default
_SOURCE_META = ("nn_module_stack", "stack_trace", "source_fn_stack")
DQ = _qd.dequantize_per_tensor.default
DQC = _qd.dequantize_per_channel.default
_RELU = (_aten.relu.default, _aten.relu_.default)
_RELU6 = (_aten.relu6.default,)
_HARDTANH = (_aten.hardtanh.default, _aten.hardtanh_.default)
# same-scale ops run on int8 tensors as they are
_PASS = {
    _aten.flatten.using_ints,
    _aten.view.default,
    _aten.reshape.default,
    _aten.permute.default,
    _aten.squeeze.dim,
    _aten.squeeze.dims,
    _aten.unsqueeze.default,
    _aten.slice.Tensor,
    _aten.select.int,
    _aten.clone.default,
    _aten._unsafe_view.default,
}


_POOLS_CAT = (_aten.max_pool2d.default, _aten.max_pool1d.default, _aten.cat.default, _aten.upsample_nearest2d.vec)


def _strip_ones(shape):
    shape = list(shape)
    while shape and shape[0] == 1:
        shape.pop(0)
    return shape


def _pair(v, n=2):
    if isinstance(v, int):
        return [v] * n
    v = list(v)
    return v * n if len(v) == 1 else v


class Fuser(RowPatterns):
    def __init__(self, gm):
        self.gm = gm
        self.graph = gm.graph
        self.count = 0
        self.names = {}  # (hint, dtype, shape) -> [(tensor, buffer name)]
        self.fused = []

    def const(self, node):
        if isinstance(node, torch.fx.Node) and node.op == "get_attr":
            obj = self.gm
            for part in node.target.split("."):
                obj = getattr(obj, part)
            return obj.detach()
        return None

    def attr(self, tensor, hint):
        """A get_attr of a new constant; equal constants (a recurrent layer's
        weights, used once per step) share one buffer, stored once."""
        tensor = tensor.contiguous()
        same = self.names.setdefault((hint, tensor.dtype, tuple(tensor.shape)), [])
        name = next((n for t, n in same if torch.equal(t, tensor)), None)  # torch.equal: no numpy needed
        if name is None:
            name = "_mpy_et_quant_%s_%d" % (hint, self.count)
            self.count += 1
            same.append((tensor, name))
            self.gm.register_buffer(name, tensor)
        return self.graph.get_attr(name)

    @staticmethod
    def source(arg):
        """(int8 node, scale, zero point) when arg is dequantize(q), else None."""
        if isinstance(arg, torch.fx.Node) and arg.op == "call_function" and arg.target == DQ:
            return arg.args[0], float(arg.args[1]), int(arg.args[2])
        return None

    def out_quant(self, node):
        """(quantize node, scale, zp, lo, hi) of node's output, a folded relu/relu6 included."""
        users = list(node.users)
        lo_real = hi_real = None
        if len(users) == 1 and users[0].op == "call_function" and users[0].target in _RELU + _RELU6 + _HARDTANH:
            c = users[0]
            if c.target in _HARDTANH:
                lo_real, hi_real = float(node_arg(c, 1, -1.0)), float(node_arg(c, 2, 1.0))
            else:
                lo_real, hi_real = 0.0, (6.0 if c.target in _RELU6 else None)
            node = c
            users = list(node.users)
        if len(users) != 1 or users[0].op != "call_function" or users[0].target != Q:
            return None
        q = users[0]
        scale, zp = float(q.args[1]), int(q.args[2])
        if (int(q.args[3]), int(q.args[4]), q.args[5]) != (-128, 127, torch.int8):
            return None
        lo, hi = quant_ref.out_range(scale, zp, lo_real, hi_real)
        return q, scale, zp, lo, hi

    def weight(self, node):
        """(int8 weight, per-channel scales) of a dequantized constant weight."""
        if not isinstance(node, torch.fx.Node) or node.op != "call_function":
            return None
        if node.target == DQC and int(node.args[3]) == 0:
            w, scales, zps = self.const(node.args[0]), self.const(node.args[1]), self.const(node.args[2])
            if w is None or scales is None or w.dtype != torch.int8 or (zps is not None and bool(zps.any())):
                return None
            return w, scales.to(torch.float64)
        return None

    def bias(self, node, sx, sw):
        if node is None:
            return torch.zeros(len(sw), dtype=torch.int32)
        b = self.const(node)
        if b is None and isinstance(node, torch.fx.Node) and node.target in (DQC, DQ):
            b = self.const(node.args[0])  # an int32 bias quantized by the user's quantizer
            if b is not None and b.dtype == torch.int32:
                return b
            return None
        if b is None:
            return None
        return torch.round(b.to(torch.float64) / (sx * sw)).to(torch.int32)

    def replace(self, q, target, args, what, kwargs=None, source=None):
        """Put target(*args) in place of q (the fused pattern's output); the new
        node takes the module and source line of `source` (the op fused)."""
        with self.graph.inserting_before(q):
            new = self.graph.call_function(target, tuple(args), kwargs)
        src = source if source is not None else q
        for key in _SOURCE_META:  # the user's module and line, kept through re-export (ETRecord, errors)
            if key in src.meta:
                new.meta[key] = src.meta[key]
        q.replace_all_uses_with(new)
        self.fused.append(what)
        return new

    # -- patterns ----------------------------------------------------------

    def weighted(self, node):
        t = node.target
        src = self.source(node.args[0])
        wq = self.weight(node.args[1])
        out = self.out_quant(node)
        if src is None or wq is None or out is None:
            return False
        x, sx, zx = src
        w, sw = wq
        q, so, zo, lo, hi = out
        with self.graph.inserting_before(q):
            b = self.bias(node_arg(node, 2, None), sx, sw)
            if b is None:
                return False
            rq = quant_ref.requant_table(sx * sw / so)
            quant_ref.check_viper_conv(w, b, zx, str(node.name))
            consts = [self.attr(w, "weight"), self.attr(b, "bias"), self.attr(rq, "requant")]
        if t == _aten.linear.default:
            self.replace(q, quant_ops.op("linear"), [x] + consts + [zx, zo, lo, hi], "linear", source=node)
            return True
        nd = w.dim() - 2
        geo = [_pair(node_arg(node, 3, 1), nd), _pair(node_arg(node, 4, 0), nd), _pair(node_arg(node, 5, 1), nd), int(node_arg(node, 6, 1))]
        if isinstance(node_arg(node, 4, 0), str):
            return False  # padding="same"
        name = "conv2d" if nd == 2 else "conv1d"
        self.replace(q, quant_ops.op(name), [x] + consts + geo + [zx, zo, lo, hi], name, source=node)
        return True

    def binary(self, node):
        a, b = self.source(node.args[0]), self.source(node_arg(node, 1, None))
        add = node.target in (_aten.add.Tensor, _aten.sub.Tensor)
        out = self.out_quant(node) if add else self._plain_out(node)
        if a is None or b is None or out is None or len(node.kwargs) or node_arg(node, 2, 1) != 1:
            return False  # alpha: stays float
        q, so, zo, lo, hi = out
        shapes = [node_shape(node.args[0]), node_shape(node.args[1])]
        if shapes[0] != shapes[1]:
            if _strip_ones(shapes[0]) != _strip_ones(shapes[1]):
                return False  # broadcasting: stays float
            # the same elements, shapes differing in leading 1s (a recurrent cell's
            # (1, 1, H) and (1, H)): both viewed as the output's shape
            with self.graph.inserting_before(q):
                a, b = [
                    (self.graph.call_function(_aten.reshape.default, (src[0], node_shape(node))),) + src[1:]
                    if shape != node_shape(node)
                    else src
                    for src, shape in ((a, shapes[0]), (b, shapes[1]))
                ]
        if add:  # sub: b's multiplier negated
            smax = max(a[1], b[1])
            ma, mb = round(a[1] / smax * 2**quant_ref.ADD_BITS), round(b[1] / smax * 2**quant_ref.ADD_BITS)
            m, s, lim = quant_ref.requant_params(smax / (so * 2**quant_ref.ADD_BITS))
            what = "add"
            if node.target == _aten.sub.Tensor:
                mb, what = -mb, "sub (add, b negated)"
            self.replace(q, quant_ops.op("add"), [a[0], b[0], a[2], ma, b[2], mb, m, s, lim, zo, lo, hi], what, source=node)
        else:
            m, s, lim = quant_ref.requant_params(a[1] * b[1] / so)
            self.replace(q, quant_ops.op("mul"), [a[0], b[0], a[2], b[2], m, s, lim, zo, lo, hi], "mul", source=node)
        return True

    def _plain_out(self, node):
        users = list(node.users)
        if len(users) != 1 or users[0].target != Q:
            return None
        q = users[0]
        return q, float(q.args[1]), int(q.args[2]), -128, 127

    def same_scale(self, node):
        """Ops whose int8 output keeps the input's scale: run on int8."""
        t = node.target
        srcs = [self.source(a) for a in node.args[0]] if t == _aten.cat.default else [self.source(node.args[0])]
        out = self._plain_out(node)
        if out is None or any(s is None for s in srcs):
            return False
        q, so, zo = out[:3]
        if t == _aten.cat.default:
            srcs = [self.requantized(src, so, zo, q) for src in srcs]
        if len({(s[1], s[2]) for s in srcs}) != 1:
            return False
        sx, zx = srcs[0][1], srcs[0][2]
        if (so, zo) != (sx, zx):
            return False
        if t == _aten.max_pool2d.default:
            if node_arg(node, 5, False):
                return False
            k = _pair(node.args[1])
            args = [srcs[0][0], k, _pair(node_arg(node, 2, []) or k), _pair(node_arg(node, 3, 0)), _pair(node_arg(node, 4, 1))]
            self.replace(q, quant_ops.op("max_pool2d"), args, "max_pool2d", source=node)
        elif t == _aten.max_pool1d.default:  # as a 2-D pool over (N, C, 1, L)
            if node_arg(node, 5, False) or len(node_shape(node.args[0])) != 3:
                return False
            k = _pair(node.args[1], 1)
            s, p, d = _pair(node_arg(node, 2, []) or k, 1), _pair(node_arg(node, 3, 0), 1), _pair(node_arg(node, 4, 1), 1)
            n, c, length = node_shape(node.args[0])
            with self.graph.inserting_before(q):
                x4 = self.graph.call_function(_aten.reshape.default, (srcs[0][0], [n, c, 1, length]))
            args = [x4, [1] + k, [1] + s, [0] + p, [1] + d]
            pooled = self.replace(q, quant_ops.op("max_pool2d"), args, "max_pool2d (1-D)", source=node)
            self._reshape_after(pooled, node_shape(node))
        elif t in _RELU:
            self.replace(q, quant_ops.op("clamp"), [srcs[0][0], zx, 127], "relu", source=node)
        elif t in _HARDTANH or t in _RELU6:
            bounds = (0.0, 6.0) if t in _RELU6 else (float(node_arg(node, 1, -1.0)), float(node_arg(node, 2, 1.0)))
            lo, hi = quant_ref.out_range(sx, zx, *bounds)
            self.replace(q, quant_ops.op("clamp"), [srcs[0][0], lo, hi], "hardtanh", source=node)
        elif t == _aten.cat.default:
            self.replace(q, t, [[s[0] for s in srcs]] + list(node.args[1:]), "cat (int8 copy)", source=node)
        elif t == _aten.upsample_nearest2d.vec:
            scales = node_arg(node, 2, None)
            if node_arg(node, 1, None) is not None or scales is None:
                return False  # by output size: stays float
            self.replace(q, quant_ops.op("upsample_nearest2d"), [srcs[0][0], [float(v) for v in scales]], "upsample_nearest2d", source=node)
        else:
            self.replace(
                q, t, [srcs[0][0]] + list(node.args[1:]), "%s (int8)" % t._schema.name.split("::")[1], dict(node.kwargs), source=node
            )
        return True

    def average(self, node):
        """avg_pool2d without padding; global means (adaptive 1x1, mean over H, W)."""
        t = node.target
        src = self.source(node.args[0])
        out = self._plain_out(node)
        if src is None or out is None:
            return False
        x, sx, zx = src
        shape = node_shape(node.args[0])
        line = len(shape) == 3 and t == _aten.mean.dim and [d % 3 for d in node.args[1]] == [2]
        if line:  # a mean over L of (N, C, L): pool (N, C, 1, L)
            with self.graph.inserting_before(out[0]):
                x = self.graph.call_function(_aten.reshape.default, (x, shape[:2] + [1, shape[2]]))
            shape = shape[:2] + [1, shape[2]]
        if len(shape) != 4:
            return False
        if t == _aten.avg_pool2d.default:
            k = _pair(node.args[1])
            stride = _pair(node_arg(node, 2, []) or k)
            if any(_pair(node_arg(node, 3, 0))) or node_arg(node, 4, False) or node_arg(node, 6, None) is not None:
                return False
        elif t == _aten.adaptive_avg_pool2d.default and list(_pair(node.args[1])) == [1, 1]:
            k = stride = shape[2:]
        elif t == _aten.mean.dim and (line or sorted(d % 4 for d in node.args[1]) == [2, 3]):
            k = stride = shape[2:]
        else:
            return False
        q, so, zo = out[:3]
        m, s, lim = quant_ref.requant_params(sx / (so * k[0] * k[1]))
        pooled = self.replace(q, quant_ops.op("avg_pool2d"), [x, k, stride, zx, m, s, lim, zo], "avg_pool2d", source=node)
        want = node_shape(node)
        if t != _aten.avg_pool2d.default and want != shape[:2] + [1, 1]:
            self._reshape_after(pooled, want)
        return True

    def _reshape_after(self, node, shape):
        """Give node's users a reshape of it to `shape`."""
        with self.graph.inserting_after(node):
            view = self.graph.call_function(_aten.reshape.default, (node, shape))
        node.replace_all_uses_with(view, delete_user_cb=lambda u: u is not view)

    @staticmethod
    def _filled(node):
        """The constant tensor of a full(size, value) node (float), else None."""
        if not (isinstance(node, torch.fx.Node) and node.op == "call_function" and node.target == _aten.full.default):
            return None
        if not isinstance(node.args[1], (int, float)):
            return None
        return torch.full(list(node.args[0]), float(node.args[1]), dtype=torch.float32)

    def boundaries(self):
        """PyTorch's remaining quantize/dequantize -> our integer-only ones
        (quantize first: a dequantize -> quantize pair becomes int8 -> int8)."""
        for node in list(self.graph.nodes):
            if node.op != "call_function" or not node.users:
                continue
            if node.target == Q:
                scale, zp, qmin, qmax = float(node.args[1]), int(node.args[2]), int(node.args[3]), int(node.args[4])
                filled = self._filled(node.args[0])
                if filled is not None:  # quantize(full(...)): an int8 constant (a recurrent layer's zero state)
                    with self.graph.inserting_before(node):
                        c = self.attr(Q(filled, scale, zp, qmin, qmax, node.args[5]), "filled")
                    node.replace_all_uses_with(c)
                    continue
                src = self.source(node.args[0])
                if src is not None and (src[1], src[2]) == (scale, zp):
                    node.replace_all_uses_with(src[0])  # dequantize -> quantize with the same parameters
                    continue
                if src is not None and (qmin, qmax, node.args[5]) == (-128, 127, torch.int8):
                    # dequantize -> quantize with other parameters (an edge observed on its own,
                    # e.g. after a fixed-scale sigmoid): requantized by a table, never in float
                    node.replace_all_uses_with(self.requantized(src, scale, zp, node)[0])
                    continue
                with self.graph.inserting_before(node):
                    thresholds = quant_ref.quantize_thresholds(scale, zp, qmin, qmax)
                    th = self.attr(thresholds, "thresholds")
                    bk = self.attr(quant_ref.quantize_buckets(thresholds), "buckets")
                self.replace(
                    node, quant_ops.op("quantize_per_tensor"), [node.args[0], th, bk, scale, zp, qmin, qmax], "quantize_per_tensor"
                )
        self.graph.eliminate_dead_code()
        for node in list(self.graph.nodes):
            if node.op != "call_function" or not node.users:
                continue
            if node.target == DQ:
                scale, zp = float(node.args[1]), int(node.args[2])
                with self.graph.inserting_before(node):
                    table = self.attr(quant_ref.dequantize_table(scale, zp), "table")
                self.replace(node, quant_ops.op("dequantize_per_tensor"), [node.args[0], table, scale, zp], "dequantize_per_tensor")

    def run(self):
        for node in list(self.graph.nodes):
            if node.op != "call_function" or not node.users:
                continue
            t = node.target
            if t in (_aten.conv2d.default, _aten.conv1d.default, _aten.linear.default):
                self.weighted(node)
            elif t in (_aten.add.Tensor, _aten.sub.Tensor, _aten.mul.Tensor):
                if isinstance(node_arg(node, 1, None), torch.fx.Node):
                    self.binary(node)
                else:
                    self.lookup(node)  # x op number: a table
            elif t == _aten.bmm.default:
                self.bmm(node)
            elif t == _aten.layer_norm.default:
                self.layer_norm(node)
            elif t in LOG_SOFTMAX:
                self.log_softmax(node)
            elif t in _PASS or t in _RELU or t in _RELU6 or t in _HARDTANH or t in _POOLS_CAT:
                self.same_scale(node)
            elif t in LUT:
                self.lookup(node)
            elif t in (_aten.avg_pool2d.default, _aten.adaptive_avg_pool2d.default, _aten.mean.dim):
                self.average(node)
            elif t in (_aten.softmax.int, _aten._softmax.default):
                self.softmax(node)
            self.graph.eliminate_dead_code()
        self.boundaries()
        self.graph.eliminate_dead_code()
        self.gm.recompile()
        return self.gm


def fuse(converted, example_inputs):
    """Fuse a converted PT2E GraphModule in place; returns (gm, fused op names)."""
    from torch.fx.passes.shape_prop import ShapeProp

    ShapeProp(converted).propagate(*example_inputs)
    f = Fuser(converted)
    gm = f.run()
    return gm, f.fused


def float_ops(ep):
    """Ops of a lowered-to-be graph that still compute in float: [(op, where)]."""
    out = []
    for node in ep.graph.nodes:
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
            continue
        if node.target.namespace == quant_ops.NAMESPACE:
            continue
        val = node.meta.get("val")
        vals = val if isinstance(val, (tuple, list)) else [val]  # native_layer_norm: (out, mean, rstd)
        if any(isinstance(v, torch.Tensor) and v.dtype.is_floating_point for v in vals):
            out.append((node.target._schema.name, where(node)))
    return out


class QuantLowering(Lowering):
    """lower.Lowering plus the mpy_et_quant operators (emitted as their .out)."""

    def __init__(self, ep, supported):
        super().__init__(ep, supported)
        self.packed_constants = {}  # _packed's: key -> (the functional args, the packed ones)

    def _call(self, node):
        t = node.target
        if not (isinstance(t, torch._ops.OpOverload) and t.namespace == quant_ops.NAMESPACE):
            return super()._call(node)
        name = t._schema.name.split("::")[1]
        args = [self._resolve(a) for a in node.args]
        if name in quant_pack.PACKED:  # weights in the layout the kernels read in place
            args = self._packed(name, args)
            name = quant_pack.PACKED[name]
        out_op = quant_ops.out_op(name)
        key = "%s::%s.out" % (quant_ops.NAMESPACE, name)
        ref = self._new_tensor(node.meta["val"], node.name)
        self.env[node] = ref
        if key not in self.supported:
            self.unsupported.append((key, where(node)))
            return
        emitted = []
        for a, v in zip([a for a in out_op._schema.arguments if not a.is_out], args, strict=True):
            emitted.append(self._emit(v, str(a.type)))
        emitted += [ref.index, ref.index]  # out, then ExecuTorch's return slot
        self.ir.instructions.append(Instruction(key, emitted, where(node)))

    def _packed(self, name, args):
        """pack.packed_args, made once per set of constants: instructions that
        share weight, bias and requantization (an unrolled recurrent cell's
        time steps) share the packed constants too."""
        key = (name,) + tuple(id(a) if isinstance(a, torch.Tensor) else repr(a) for a in args[1:])
        cache = self.packed_constants
        if key not in cache:
            cache[key] = (args, quant_pack.packed_args(name, args))  # args kept: their ids stay theirs
        return [args[0]] + cache[key][1][1:]


def lower_quantized(ep, supported):
    """ProgramIR of a fused, re-exported quantized program.

    Raises:
        UnsupportedOps: as host_tools.lowering.lower.lower.
    """
    return QuantLowering(ep, supported).run()

"""int8 layers against the fp32 model: the SQNR of each int8 activation.

An int8 instruction's output is a tensor of the PT2E converted graph that a
`quantize_per_tensor(x, scale, zero_point, ...)` node made; its float value
is (q - zero_point) * scale, and the fp32 model's value of the same
activation is that of the float node `x` (PT2E keeps the float model's node
names). The fused program does not name the quantize node, so each
instruction is matched to one by value: in order, the quantize node of the
same shape whose int8 output (the converted graph run in float, quantize
nodes included) agrees best with the instruction's (our integer kernels
round as PyTorch's simulated quantization does, within one step).
"""

import torch

from host_tools.devtools.values import module_values, node_values, sqnr_db

_MATCH = 0.9  # the share of values within one step that makes a match


def activation_quantizers(converted, inputs):
    """[(quantize node value (int8), scale, zero point, float input node name)]
    of the converted graph's activation quantize nodes, in graph order."""
    values = module_values(converted, inputs)
    out = []
    for n in converted.graph.nodes:
        if n.op != "call_function" or "quantize_per_tensor" not in str(n.target) or "dequantize" in str(n.target):
            continue
        x = n.args[0]
        if not isinstance(x, torch.fx.Node) or x.op == "get_attr":
            continue  # a weight's quantization
        scale, zp = n.args[1], n.args[2]
        if isinstance(scale, torch.fx.Node) or isinstance(zp, torch.fx.Node):
            continue
        out.append((values[n.name], float(scale), int(zp), x.name))
    return out


def fp32_values(model, inputs):
    """{node name: value} of the float model as torch.export captures it (the
    graph PT2E starts from)."""
    return node_values(torch.export.export(model.eval(), tuple(inputs)), tuple(inputs))


def layer_sqnr(steps, quantizers, fp32):
    """Per captured step, the SQNR (dB) of its int8 output against the fp32
    model's activation, or None where no activation matches."""
    out, start = [], 0
    for step in steps:
        got = step["outputs"][0]
        if got.dtype != torch.int8:
            out.append(None)
            continue
        best, best_k = 0.0, None
        for k in range(start, len(quantizers)):
            q = quantizers[k][0]
            if tuple(q.shape) != tuple(got.shape):
                continue
            agree = float(((q.int() - got.int()).abs() <= 1).float().mean()) if q.numel() else 1.0
            if agree > best:
                best, best_k = agree, k
            if agree == 1.0:
                break
        if best_k is None or best < _MATCH:
            out.append(None)
            continue
        start = best_k + 1
        _, scale, zp, name = quantizers[best_k]
        ref = fp32.get(name)
        if not isinstance(ref, torch.Tensor) or tuple(ref.shape) != tuple(got.shape):
            out.append(None)
            continue
        out.append(sqnr_db(ref, (got.double() - zp) * scale))
    return out

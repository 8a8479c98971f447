"""Post-training int8 quantization with PyTorch's PT2E flow and a Quantizer of ours.

Convention (CMSIS-NN / TFLite Micro / ExecuTorch's Cortex-M backend):
activations int8 per-tensor affine [-128, 127], weights int8 per-channel
symmetric [-127, 127] (axis 0), bias int32 (scale = input scale x weight
scale; quantized in host_tools/quantize/lower.py from the float bias).

    gm = quantize_pt2e_int8(model, example_inputs, calibration)

returns PyTorch's converted graph (quantize/dequantize around float ops), the
"reference" of PT2E; host_tools/quantize/lower.py fuses it into mpy_et_quant
operators. A user who quantized with PT2E already can pass their converted
module to host_tools.export(..., quantize="int8") with calibration=None.
"""

import torch

from host_tools.quantize.op_sets import CLAMPS, LOG_SOFTMAX, LUT, RESCALE, SAME_SCALE, SOFTMAX, SOFTMAX_LEVELS, WEIGHTED  # noqa: F401
from host_tools.quantize.share_steps import share_across_steps

_aten = torch.ops.aten


# Recurrent layers and attention are one op each (aten.gru.input, ...,
# scaled_dot_product_attention) in the exported graph: unrolled before prepare
# into ops the Quantizer annotates one by one (the cells' linear / sigmoid /
# tanh / mul / add / sub and slices; attention's bmm, scaling, softmax, bmm),
# so the whole layer runs in int8.
_RECURRENT = {_aten.gru.input, _aten.lstm.input, _aten.rnn_tanh.input, _aten.rnn_relu.input}
_SDPA = _aten.scaled_dot_product_attention.default


def _unrolling(ep):
    """The decomposition table for ep's recurrent layers and plain attention, or None."""
    from torch._decomp import get_decompositions

    found = {n.target for n in ep.graph.nodes if n.op == "call_function"}
    plain_sdpa = [n for n in ep.graph.nodes if n.op == "call_function" and n.target is _SDPA and _plain_attention(n)]
    if not (found & _RECURRENT or plain_sdpa):
        return None
    table = get_decompositions(
        list(_RECURRENT & found)
        + [_aten.split.Tensor, _aten.unbind.int, _aten.transpose.int, _aten.zeros.default, _aten.dropout.default, _aten.contiguous.default]
    )
    table[_aten.split_with_sizes.default] = _split_as_slices  # the gates: slices, each annotated
    if plain_sdpa and len(plain_sdpa) == sum(1 for n in ep.graph.nodes if n.target is _SDPA):
        table[_SDPA] = _attention
    return table


def _plain_attention(node):
    """scaled_dot_product_attention without mask, causality or dropout."""
    args = list(node.args[3:]) + [None] * 4
    mask = node.kwargs.get("attn_mask", args[0])
    dropout = node.kwargs.get("dropout_p", args[1] or 0.0)
    causal = node.kwargs.get("is_causal", args[2] or False)
    return mask is None and not dropout and not causal and not node.kwargs.get("enable_gqa", False)


def _attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    """softmax(q @ k^T * scale) @ v over [..., L, E] as 3-D bmm (plain attention only)."""
    import math

    *lead, length, e = q.shape
    s_len, ev = k.shape[-2], v.shape[-1]
    bh = 1
    for d in lead:
        bh *= d
    kt = _aten.permute.default(_aten.reshape.default(k, [bh, s_len, e]), [0, 2, 1])
    scores = _aten.mul.Tensor(
        _aten.bmm.default(_aten.reshape.default(q, [bh, length, e]), kt), scale if scale is not None else 1.0 / math.sqrt(e)
    )
    probs = _aten._softmax.default(scores, -1, False)
    out = _aten.bmm.default(probs, _aten.reshape.default(v, [bh, s_len, ev]))
    return _aten.reshape.default(out, list(lead) + [length, ev])


def _split_as_slices(x, split_sizes, dim=0):
    out, start = [], 0
    for size in split_sizes:
        out.append(_aten.slice.Tensor(x, dim, start, start + size))
        start += size
    return out


def _specs():
    from torchao.quantization.pt2e.observer import MinMaxObserver, PerChannelMinMaxObserver
    from torchao.quantization.pt2e.quantizer import QuantizationSpec

    act = QuantizationSpec(
        dtype=torch.int8,
        quant_min=-128,
        quant_max=127,
        qscheme=torch.per_tensor_affine,
        is_dynamic=False,
        observer_or_fake_quant_ctr=MinMaxObserver.with_args(eps=2**-12),
    )
    weight = QuantizationSpec(
        dtype=torch.int8,
        quant_min=-127,
        quant_max=127,
        qscheme=torch.per_channel_symmetric,
        ch_axis=0,
        is_dynamic=False,
        observer_or_fake_quant_ctr=PerChannelMinMaxObserver.with_args(eps=2**-12),
    )
    return act, weight


def _is_clamp(node):
    """relu / relu6 (hardtanh(0, 6)): clamps an int8 producer can apply itself."""
    if node.op != "call_function" or node.target not in CLAMPS:
        return False
    if node.target in (_aten.hardtanh.default, _aten.hardtanh_.default):
        lo = node.args[1] if len(node.args) > 1 else -1.0
        return lo == 0.0
    return True


def _with_scalar(node):
    """x (float tensor) op number, without alpha."""
    a = node.args
    return len(a) == 2 and not node.kwargs and _float_tensor(a[0]) and isinstance(a[1], (int, float)) and not isinstance(a[1], bool)


def _float_tensor(n):
    val = n.meta.get("val") if isinstance(n, torch.fx.Node) else None
    return val is not None and getattr(val, "dtype", None) == torch.float32


def make_quantizer():
    """Our PT2E Quantizer (a torchao.quantization.pt2e Quantizer subclass)."""
    from torchao.quantization.pt2e.quantizer import (
        FixedQParamsQuantizationSpec,
        QuantizationAnnotation,
        Quantizer,
        SharedQuantizationSpec,
    )

    act, weight = _specs()
    probs = FixedQParamsQuantizationSpec(
        dtype=torch.int8, scale=1.0 / SOFTMAX_LEVELS, zero_point=-128, quant_min=-128, quant_max=127, qscheme=torch.per_tensor_affine
    )

    class MpyEtInt8Quantizer(Quantizer):
        """Annotates conv/linear (+ relu/relu6), add, mul, pools, mean, cat,
        softmax, table activations (LUT) and same-scale shape ops; everything
        else stays float."""

        def annotate(self, model):
            for node in model.graph.nodes:
                if node.op != "call_function" or "quantization_annotation" in node.meta:
                    continue
                t = node.target
                if t in WEIGHTED:
                    qmap = {node.args[0]: act, node.args[1]: weight}
                    users = list(node.users)
                    out_node = node
                    if len(users) == 1 and _is_clamp(users[0]):
                        out_node = users[0]
                        out_node.meta["quantization_annotation"] = QuantizationAnnotation(output_qspec=act, _annotated=True)
                        node.meta["quantization_annotation"] = QuantizationAnnotation(input_qspec_map=qmap, _annotated=True)
                    else:
                        node.meta["quantization_annotation"] = QuantizationAnnotation(
                            input_qspec_map=qmap, output_qspec=act, _annotated=True
                        )
                elif t in LOG_SOFTMAX:
                    if not _float_tensor(node.args[0]):
                        continue
                    node.meta["quantization_annotation"] = QuantizationAnnotation(
                        input_qspec_map={node.args[0]: act}, output_qspec=act, _annotated=True
                    )
                elif t is _aten.layer_norm.default:
                    if not _float_tensor(node.args[0]):
                        continue
                    node.meta["quantization_annotation"] = QuantizationAnnotation(
                        input_qspec_map={node.args[0]: act}, output_qspec=act, _annotated=True
                    )
                elif t is _aten.bmm.default:
                    if not all(_float_tensor(a) for a in node.args[:2]):
                        continue
                    qmap = {a: act for a in node.args[:2]}
                    node.meta["quantization_annotation"] = QuantizationAnnotation(input_qspec_map=qmap, output_qspec=act, _annotated=True)
                elif t in (_aten.add.Tensor, _aten.sub.Tensor, _aten.mul.Tensor) and _with_scalar(node):
                    # x op number (attention's scaling): elementwise in one input, a table
                    node.meta["quantization_annotation"] = QuantizationAnnotation(
                        input_qspec_map={node.args[0]: act}, output_qspec=act, _annotated=True
                    )
                elif t in (_aten.add.Tensor, _aten.sub.Tensor, _aten.mul.Tensor):
                    if not all(_float_tensor(a) for a in node.args[:2]):
                        continue
                    qmap = {a: act for a in node.args[:2]}
                    users = list(node.users)
                    if t is not _aten.mul.Tensor and len(users) == 1 and _is_clamp(users[0]):
                        users[0].meta["quantization_annotation"] = QuantizationAnnotation(output_qspec=act, _annotated=True)
                        node.meta["quantization_annotation"] = QuantizationAnnotation(input_qspec_map=qmap, _annotated=True)
                    else:
                        node.meta["quantization_annotation"] = QuantizationAnnotation(
                            input_qspec_map=qmap, output_qspec=act, _annotated=True
                        )
                elif t in RESCALE:
                    inputs = node.args[0] if t is _aten.cat.default else [node.args[0]]
                    qmap = {a: act for a in inputs}
                    node.meta["quantization_annotation"] = QuantizationAnnotation(input_qspec_map=qmap, output_qspec=act, _annotated=True)
                elif t in SOFTMAX:
                    if not _float_tensor(node.args[0]):
                        continue
                    node.meta["quantization_annotation"] = QuantizationAnnotation(
                        input_qspec_map={node.args[0]: act}, output_qspec=probs, _annotated=True
                    )
                elif t in LUT:
                    if not _float_tensor(node.args[0]):
                        continue
                    fixed = LUT[t]
                    spec = act
                    if fixed is not None:
                        spec = FixedQParamsQuantizationSpec(
                            dtype=torch.int8,
                            scale=fixed[0],
                            zero_point=fixed[1],
                            quant_min=-128,
                            quant_max=127,
                            qscheme=torch.per_tensor_affine,
                        )
                    node.meta["quantization_annotation"] = QuantizationAnnotation(
                        input_qspec_map={node.args[0]: act}, output_qspec=spec, _annotated=True
                    )
                elif t in SAME_SCALE or _is_clamp(node):
                    src = node.args[0]
                    if not _float_tensor(src):
                        continue
                    node.meta["quantization_annotation"] = QuantizationAnnotation(
                        input_qspec_map={src: act}, output_qspec=SharedQuantizationSpec((src, node)), _annotated=True
                    )
            share_across_steps(model.graph, act, SharedQuantizationSpec)
            return model

        def validate(self, model):
            pass

    return MpyEtInt8Quantizer()


def quantize_pt2e_int8(model, example_inputs, calibration):
    """PT2E post-training quantization with our Quantizer.

    Args:
        model: torch.nn.Module (float).
        example_inputs: tuple of tensors.
        calibration: list of input tuples run through the observers (the
            example inputs are used when it is empty or None).
    Returns:
        the converted torch.fx.GraphModule (quantize/dequantize + float ops).
    """
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    if isinstance(model, torch.nn.Module):
        model = model.eval()
    ep = torch.export.export(model, tuple(example_inputs))
    table = _unrolling(ep)
    if table:
        ep = ep.run_decompositions(table)
    gm = ep.module()
    prepared = prepare_pt2e(gm, make_quantizer())
    with torch.no_grad():
        for batch in calibration or [example_inputs]:
            prepared(*(batch if isinstance(batch, (tuple, list)) else (batch,)))
    return convert_pt2e(prepared, fold_quantize=True)


def _is_converted(model):
    """A GraphModule PT2E already converted (quantize/dequantize nodes in it)."""
    if not isinstance(model, torch.fx.GraphModule):
        return False
    return any(n.op == "call_function" and "quantized_decomposed" in str(n.target) for n in model.graph.nodes)


def capture_quantized(model, example_inputs, quantize, calibration, report=None, quantized_io=False):
    """The fused int8 ExportedProgram of a model and the lowering to use.

    Args:
        model: a float nn.Module, or a GraphModule converted with PT2E
            (convert_pt2e) by the user's own quantizer.
        example_inputs: tuple of tensors.
        quantize: "int8".
        calibration: list of input tuples (ignored for a converted module).
        report: a dict to fill with "fused" (fused op names, in order),
            "float_ops" ([(op, where)]: ops that stay float) and, with
            quantized_io, "io_quantization" (host_tools/quantize/io.py).
        quantized_io: int8 program inputs and outputs (their quantize /
            dequantize removed; scales and zero points in the report).
    Returns:
        (ExportedProgram, lower function).
    """
    from host_tools.quantize import lower as quant_lower

    if quantize != "int8":
        raise ValueError("quantize must be 'int8', got %r" % (quantize,))
    converted = model if _is_converted(model) else quantize_pt2e_int8(model, example_inputs, calibration)
    gm, fused = quant_lower.fuse(converted, tuple(example_inputs))
    example_inputs = tuple(example_inputs)
    io = None
    if quantized_io:
        from host_tools.quantize.io import strip_io_quantization

        gm, example_inputs, io = strip_io_quantization(gm, example_inputs)
    ep = torch.export.export(gm, example_inputs).run_decompositions()
    if report is not None:
        if io is not None:
            report["io_quantization"] = io
        report["fused"] = fused
        report["float_ops"] = quant_lower.float_ops(ep)
        report["reference"] = gm
    return ep, quant_lower.lower_quantized


def cli_options(quantize, calibration_path, example_inputs, error, quantized_io=False):
    """export() keywords for `mpy-et export --quantize int8 --calibration FILE`.

    The file holds a torch.save'd list of input tuples (or of tensors, for a
    one-input model); without it the example inputs calibrate.
    """
    calibration = None
    if calibration_path:
        import os

        if not os.path.isfile(calibration_path):
            raise error("calibration file %s: no such file" % calibration_path)
        try:
            data = torch.load(calibration_path)
        except Exception as e:
            raise error("calibration file %s cannot be read with torch.load: %s" % (calibration_path, e)) from e
        if not isinstance(data, (list, tuple)) or not data:
            raise error("calibration file %s must hold a non-empty list of input tuples, got %s" % (calibration_path, type(data).__name__))
        calibration = [tuple(b) if isinstance(b, (list, tuple)) else (b,) for b in data]
        for i, batch in enumerate(calibration):
            if len(batch) != len(example_inputs) or any(not isinstance(t, torch.Tensor) for t in batch):
                raise error(
                    "calibration file %s: entry %d must be %d tensor(s) like the example inputs"
                    % (calibration_path, i, len(example_inputs))
                )
    return {"quantize": quantize, "calibration": calibration, "report": {}, "quantized_io": quantized_io}


def report_lines(report):
    """The export report of a quantized program: int8 operators, float ones."""
    from collections import Counter

    counts = Counter(report.get("fused", []))
    lines = ["int8 operators: " + ", ".join("%s x%d" % (k, v) for k, v in sorted(counts.items()))]
    floats = report.get("float_ops", [])
    if floats:
        lines.append("stay float (between quantize/dequantize): %d" % len(floats))
        lines += ["  %s in %s" % (name, where) for name, where in floats]
    else:
        lines.append("stay float: none")
    return lines

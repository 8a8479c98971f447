"""int8 program inputs and outputs (export(..., quantize="int8", quantized_io=True)).

The fused int8 graph starts with mpy_et_quant::quantize_per_tensor of each
float input and ends with dequantize_per_tensor of each output. With
quantized_io those are removed, as ExecuTorch's QuantizeInputs /
QuantizeOutputs passes do for its programs: a camera's or microphone's int8
bytes go in without a float copy in the arena, and the caller gets the int8
result with its scale and zero point. The parameters travel in the program
as named data (NAMED_DATA_KEY, a small JSON text), read by `mpy-et inspect`,
`host_tools.run` (which quantizes float inputs for such a program) and by
the device (`Program.named_data(NAMED_DATA_KEY)`).
"""

import json

NAMED_DATA_KEY = "mpy_et/io_quantization"
_Q = "mpy_et_quant.quantize_per_tensor.default"
_DQ = "mpy_et_quant.dequantize_per_tensor.default"


def _is(node, name):
    import torch

    return isinstance(node, torch.fx.Node) and node.op == "call_function" and str(node.target) == name


def strip_io_quantization(gm, example_inputs):
    """Remove the leading quantize and trailing dequantize ops of a fused graph.

    Args:
        gm: the fused GraphModule (mpy_et_quant operators).
        example_inputs: its float example inputs.
    Returns:
        (gm, example inputs for the new graph: int8 where the input became
        int8, {"inputs": [[scale, zero_point] or None, ...], "outputs": [...]}).
        An input used by anything but one quantize op, or an output not made
        by a dequantize op, stays float (None).
    """
    import torch

    graph = gm.graph
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    ins, new_inputs = [], []
    for ph, x in zip(placeholders, example_inputs):
        users = [u for u in ph.users if u.op != "call_module"]  # the export guard only reads shapes
        if len(users) == 1 and _is(users[0], _Q):
            q = users[0]
            scale, zp, qmin, qmax = float(q.args[3]), int(q.args[4]), int(q.args[5]), int(q.args[6])
            q.replace_all_uses_with(ph)
            graph.erase_node(q)
            ins.append([scale, zp])
            new_inputs.append(torch.clamp(torch.round(x / scale) + zp, qmin, qmax).to(torch.int8))
        else:
            ins.append(None)
            new_inputs.append(x)
    out_node = next(n for n in graph.nodes if n.op == "output")
    results = out_node.args[0]
    single = not isinstance(results, (tuple, list))
    items = [results] if single else list(results)
    outs = []
    for k, r in enumerate(items):
        if _is(r, _DQ) and len(r.users) == 1:
            outs.append([float(r.args[2]), int(r.args[3])])
            items[k] = r.args[0]
        else:
            outs.append(None)
    out_node.args = (items[0] if single else type(results)(items),)
    for n in [n for n in graph.nodes if _is(n, _DQ) and not n.users]:
        graph.erase_node(n)
    _drop_guards(gm)
    graph.eliminate_dead_code()
    gm.recompile()
    return gm, tuple(new_inputs), {"inputs": ins, "outputs": outs}


def _drop_guards(gm):
    """The export guard submodule checks the float input dtypes: gone with them."""
    for n in [n for n in gm.graph.nodes if n.op == "call_module" and "guard" in str(n.target)]:
        gm.graph.erase_node(n)


def encode(io):
    """The named-data bytes of an io-quantization record (None if nothing is int8)."""
    if not any(io["inputs"]) and not any(io["outputs"]):
        return None
    return json.dumps(io, sort_keys=True).encode()


def decode(data):
    """The record from a program's named data (bytes or memoryview), or None."""
    return None if data is None else json.loads(bytes(data).decode())


def read(program):
    """The io-quantization record of an mpy_et.Program, or None."""
    return decode(program.named_data(NAMED_DATA_KEY))


def describe(io):
    """Lines naming each int8 input's and output's scale and zero point."""
    lines = []
    for kind in ("inputs", "outputs"):
        for i, q in enumerate(io[kind]):
            what = "%s %d" % (kind[:-1], i)
            lines.append(
                "%s: int8, scale %r, zero point %d (real = scale * (q - zero point))" % (what, q[0], q[1]) if q else "%s: float" % what
            )
    return lines


def quantize(x, scale, zero_point):
    """A float tensor as the int8 a program with int8 inputs takes (round half to even, as torch)."""
    import torch

    return torch.clamp(torch.round(x / scale) + zero_point, -128, 127).to(torch.int8)

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


# Operators whose MACs instruction_macs counts: name -> (index of the weight or
# left operand among the call's arguments, "weight": numel(weight[1:]) terms
# per output element, "k": its last dim).
_PROGRAM_PRODUCTS = {
    "aten::convolution.out": (1, "weight"),
    "aten::mm.out": (0, "k"),
    "aten::bmm.out": (0, "k"),
    "aten::addmm.out": (1, "k"),
    "mpy_et_quant::conv2d_packed.out": (0, "packed conv"),
    "mpy_et_quant::conv1d_packed.out": (0, "packed conv"),
    "mpy_et_quant::linear_packed.out": (0, "k"),
    "mpy_et_quant::bmm.out": (0, "k"),
}


def instruction_macs(data, method="forward"):
    """MACs of each convolution and matrix product instruction of a program,
    counted as count_macs counts them in the graph (output elements x terms
    per element), from the .pte alone.

    Args:
        data: .pte bytes.
        method: method name.
    Returns:
        dict instruction index -> MACs (instructions that are not products are absent).
    """
    from mpy_et import Program
    from mpy_et import schema as S
    from mpy_et.flatbuf import FlatReader
    from mpy_et.method import operator_names

    program = Program.load(data)
    r = program.reader
    plan = program._plans[method]
    values, _ = r.vector(plan, S.EXECUTION_PLAN_VALUES, 4, "values")

    def sizes(i):
        pos = r.subtable(r.table_at(values, i, "values"), S.EVALUE_VAL, "values")
        s, k = r.vector(pos, S.TENSOR_SIZES, 4, "sizes")
        return list(r.ints(s, k, "i"))

    def integer(i):
        pos = r.subtable(r.table_at(values, i, "values"), S.EVALUE_VAL, "values")
        return r.scalar(pos, S.INT_INT_VAL, FlatReader.i64, 0, "int")

    def int_list(i):
        pos = r.subtable(r.table_at(values, i, "values"), S.EVALUE_VAL, "values")
        s, k = r.vector(pos, S.INT_LIST_ITEMS, 8, "items")
        return [integer(r.i64(s + 8 * j, "item")) for j in range(k)]

    ops = operator_names(r, plan, "method")
    out = {}
    s, n_chains = r.vector(plan, S.EXECUTION_PLAN_CHAINS, 4, "chains")
    if not n_chains:
        return out
    si, n = r.vector(r.table_at(s, 0, "chain"), S.CHAIN_INSTRUCTIONS, 4, "instructions")
    for i in range(n):
        ins = r.table_at(si, i, "instruction")
        if r.scalar(ins, S.INSTRUCTION_INSTR_ARGS_TYPE, FlatReader.u8, 0, "tag") != S.INSTRUCTION_ARGUMENTS_KERNEL_CALL:
            continue
        pos = r.subtable(ins, S.INSTRUCTION_INSTR_ARGS, "call")
        rule = _PROGRAM_PRODUCTS.get(ops[r.scalar(pos, S.KERNEL_CALL_OP_INDEX, FlatReader.i32, 0, "op")])
        if rule is None:
            continue
        sa, na = r.vector(pos, S.KERNEL_CALL_ARGS, 4, "args")
        args = r.ints(sa, na, "i")
        operand = sizes(args[rule[0]])
        if rule[1] == "packed conv":  # weight rows are padded: (C / groups) x kernel taps, from the arguments
            terms = operand[1] // integer(args[7]) * _numel(int_list(args[3]))
        else:
            terms = _numel(operand[1:]) if rule[1] == "weight" else operand[-1]
        out[i] = _numel(sizes(args[-1])) * terms
    return out

"""torch.cond as ExecuTorch's emitter writes it: both branches inline in the
one instruction chain,

    JumpFalseCall(pred, to the false branch)
    <true branch>   MoveCall(its outputs -> the cond's outputs)
    JumpFalseCall(False, past the false branch)
    <false branch>  MoveCall(its outputs -> the cond's outputs)

The cond's outputs are planned tensors of their own; a MoveCall copies a
branch's result into them (mpy_et/method.py runs it as a byte copy; ExecuTorch's
runtime moves the value). Both branches' tensors are planned: the planner sees
the instructions in this order, so a tensor of one branch never shares bytes
with one alive across the other. A condition known at export (a constant)
inlines the branch it picks.
"""

import torch

from host_tools.lowering.ir import Instruction
from host_tools.lowering.nodes import Ref, UnsupportedOps, where

COND = torch.ops.higher_order.cond


def lower_cond(lowering, node, args):
    """Emit a cond node's instructions; return the tuple of its output Refs."""
    pred, true_gm, false_gm, operands = args[0], args[1], args[2], tuple(args[3])
    if not isinstance(pred, Ref):  # known at export: only the branch it picks
        return tuple(inline(lowering, true_gm if bool(pred) else false_gm, operands))
    ir = lowering.ir
    p = ir.tensor(pred.index)
    if p is None or p.nbytes != 1:
        raise UnsupportedOps("torch.cond: the condition must be a one-element bool tensor, got %s" % (p,))
    vals = node.meta["val"]
    outs = [lowering._new_tensor(v, "%s_%d" % (node.name, i)) for i, v in enumerate(vals)]
    src = where(node)
    to_false = Instruction("", [pred.index], src, kind="JumpFalseCall")
    ir.instructions.append(to_false)
    _moves(lowering, inline(lowering, true_gm, operands), outs, src)
    past = Instruction("", [ir.scalar("Bool", False)], src, kind="JumpFalseCall")
    ir.instructions.append(past)
    to_false.jump = len(ir.instructions)
    _moves(lowering, inline(lowering, false_gm, operands), outs, src)
    past.jump = len(ir.instructions)
    return tuple(outs)


def _moves(lowering, results, outs, src):
    if len(results) != len(outs):
        raise UnsupportedOps("torch.cond: a branch returns %d values, the cond %d" % (len(results), len(outs)))
    for r, o in zip(results, outs):
        index = lowering._tensor_arg(r)
        t, t_out = lowering.ir.tensor(index), lowering.ir.tensor(o.index)
        if t is None or t.dtype != t_out.dtype or t.sizes != t_out.sizes:
            raise UnsupportedOps("torch.cond: a branch's output %s does not match the cond's %s" % (t, t_out))
        lowering.ir.instructions.append(Instruction("", [index, o.index], src, kind="MoveCall"))


def inline(lowering, gm, operands, what="torch.cond"):
    """Lower a branch's (or a map body's) graph with its placeholders bound
    to the operands; return its outputs."""
    k = 0
    for n in gm.graph.nodes:
        if n.op == "placeholder":
            lowering.env[n] = operands[k]
            k += 1
        elif n.op == "get_attr":  # a nested cond's branch
            lowering.env[n] = getattr(gm, n.target)
        elif n.op == "call_function":
            try:
                lowering._call(n)
            except UnsupportedOps as e:
                raise UnsupportedOps("%s\n  in %s" % (e, where(n))) from e
        elif n.op == "output":
            return [lowering._resolve(a) for a in n.args[0]]
    raise UnsupportedOps("%s: a graph without output" % what)

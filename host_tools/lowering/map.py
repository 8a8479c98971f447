"""torch.ops.higher_order.map as ExecuTorch's emitter writes it: a loop over
the leading dim of the mapped tensors, in the one instruction chain,

    L:  aten::select_copy.int_out(xs, 0, k, x)          x = xs[k], for each mapped tensor
        <the body, inline>
        executorch_prim::et_copy_index.tensor(out, y, k)  out[k] = y, for each result
        executorch_prim::add.Scalar(k, 1, k)
        executorch_prim::eq.Scalar(k, n, done)
        JumpFalseCall(done, L)
        executorch_prim::sub.Scalar(k, n, k)             k back to 0 for the next call

k (the counter) and done are Int / Bool values of their own, not shared
with other constants; n is the static length. The results are marked
DYNAMIC_BOUND, as ExecuTorch's emitter marks them: ExecuTorch's
et_copy_index resizes its copy_to to k + 1 rows at each call, and only a
bounded tensor may be resized; mpy_et keeps them at their full size
(mpy_et/loops.py), and views of them stay static views. The planner keeps every tensor alive across the loop
that is alive when it starts or read after it ends
(host_tools/planning/lifetimes.py).
"""

import torch

from host_tools.lowering import cond
from host_tools.lowering.ir import Instruction
from host_tools.lowering.nodes import UnsupportedOps, where

MAP = torch.ops.higher_order.map_impl

SELECT = "aten::select_copy.int_out"
COPY_INDEX = "executorch_prim::et_copy_index.tensor"
ADD, EQ, SUB = "executorch_prim::add.Scalar", "executorch_prim::eq.Scalar", "executorch_prim::sub.Scalar"
OPS = (SELECT, COPY_INDEX, ADD, EQ, SUB)


def lower_map(lowering, node, args):
    """Emit a map node's loop; return the tuple of its result Refs."""
    body, xs, extra = args[0], list(args[1]), list(args[2])
    ir = lowering.ir
    src = where(node)
    xs = [lowering._tensor_arg(x) for x in xs]
    lengths = {ir.tensor(x).sizes[0] if ir.tensor(x).sizes else None for x in xs}
    if len(lengths) != 1 or None in lengths:
        raise UnsupportedOps("map: the mapped tensors must share their leading dim (got %s)" % sorted(map(str, lengths)))
    n = lengths.pop()
    if any(ir.tensor(x).dynamic and not ir.tensor(x).filled for x in xs):
        raise UnsupportedOps("map: over a dynamic dim (up to %d); mpy_et runs map over a static length: export it static" % n)
    if n < 1:
        raise UnsupportedOps("map: over %d rows; mpy_et runs map over at least 1" % n)
    places = [p for p in body.graph.nodes if p.op == "placeholder"]
    vals = node.meta["val"]
    outs = [lowering._new_tensor(v, "%s_%d" % (node.name, i)) for i, v in enumerate(vals)]
    for o in outs:
        ir.tensor(o.index).dynamic = ir.tensor(o.index).filled = True
    k = ir.add("Int", 0)  # the counter: a value of its own (scalars are otherwise shared)
    done = ir.add("Bool", False)
    count, one, dim0 = ir.scalar("Int", n), ir.scalar("Int", 1), ir.scalar("Int", 0)
    start = len(ir.instructions)
    rows = []
    for x, p in zip(xs, places):
        row = lowering._new_tensor(p.meta["val"], p.name)
        ir.instructions.append(Instruction(SELECT, [x, dim0, k, row.index, row.index], src))
        rows.append(row)
    results = cond.inline(lowering, body, rows + extra, "map")
    if len(results) != len(outs):
        raise UnsupportedOps("map: the body returns %d values, the map %d" % (len(results), len(outs)))
    for r, o in zip(results, outs):
        y = lowering._tensor_arg(r)
        t, t_out = ir.tensor(y), ir.tensor(o.index)
        if t is None or t.dtype != t_out.dtype or [n] + list(t.sizes) != list(t_out.sizes):
            raise UnsupportedOps("map: a result of the body %s does not match the map's %s" % (t, t_out))
        ir.instructions.append(Instruction(COPY_INDEX, [o.index, y, k], src))
    ir.instructions.append(Instruction(ADD, [k, one, k], src))
    ir.instructions.append(Instruction(EQ, [k, count, done], src))
    back = Instruction("", [done], src, kind="JumpFalseCall")
    back.jump = start
    ir.instructions.append(back)
    ir.instructions.append(Instruction(SUB, [k, count, k], src))
    return tuple(outs)

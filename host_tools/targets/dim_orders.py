"""The dim orders of a program's inputs and outputs, and torch tensors in them.

host_tools.run takes inputs in any memory format (a channels-last tensor is
just a tensor to torch) and writes each one's bytes in the order the program
declares for it; outputs come back as tensors whose strides are the
program's order (channels-last outputs are channels-last tensors).
"""

from mpy_et import Program
from mpy_et import schema as S
from mpy_et.flatbuf import FlatReader
from mpy_et.method import _memory_order


def io_orders(pte, method="forward"):
    """(input orders, output orders) of `method`: a tuple per tensor whose bytes
    are not in the contiguous order, else None."""
    p = Program.load(bytes(pte))
    r = p.reader
    plan = p._plans[method]
    vs, _ = r.vector(plan, S.EXECUTION_PLAN_VALUES, 4, "values")

    def orders(slot):
        s, n = r.vector(plan, slot, 4, "io")
        out = []
        for i in r.ints(s, n, "i"):
            ev = r.table_at(vs, i, "value")
            if r.scalar(ev, S.EVALUE_VAL_TYPE, FlatReader.u8, 0, "value") != S.KERNEL_TYPES_TENSOR:
                out.append(None)
                continue
            pos = r.subtable(ev, S.EVALUE_VAL, "value")
            ss, k = r.vector(pos, S.TENSOR_SIZES, 4, "sizes")
            sizes = r.ints(ss, k, "i")
            ds, k = r.vector(pos, S.TENSOR_DIM_ORDER, 1, "dim_order")
            out.append(_memory_order(r.ints(ds, k, "B"), sizes, r, "value") if k else None)
        return out

    return orders(S.EXECUTION_PLAN_INPUTS), orders(S.EXECUTION_PLAN_OUTPUTS)


def to_memory(t, order):
    """t's elements as a contiguous tensor in the memory order `order` (None: as is)."""
    return t.contiguous() if order is None else t.permute(order).contiguous()


def from_memory(t, order):
    """A tensor of logical shape t.shape whose bytes (t's, contiguous) are in `order`."""
    if order is None:
        return t
    inverse = [0] * len(order)
    for k, d in enumerate(order):
        inverse[d] = k
    return t.reshape([t.shape[d] for d in order]).permute(inverse)

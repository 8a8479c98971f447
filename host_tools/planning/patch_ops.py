"""Row geometry of the instructions planning/patch.py can run band by band.

An instruction runs on a band of rows of its NCHW output when each of its
row inputs (the tensors with an H dimension it reads) is needed only over a
band of rows too: for a convolution or a pool, the rows its windows cover
(k_eff = dilation * (kernel - 1) + 1 rows, stride s, padding p on H); for
an elementwise op the same rows. Border bands of a padded window op get
their padding from an explicit constant_pad_nd of the band (zeros, the
input's zero point for int8, the int8 minimum for max pooling), so the op
itself then pads H by 0; except a first band whose own padding gives
exactly its rows (own_padding: a stride-2 convolution at the image top).
"""

from dataclasses import dataclass
from typing import Optional

from host_tools.lowering.ir import Instruction, TensorValue
from host_tools.planning.lifetimes import INPLACE_OPS

# int8 elementwise ops (mpy_et_quant::X.out): tensor arguments with the
# output's shape are row inputs; the others are tables, read whole.
_QUANT_ELEMENTWISE = frozenset(
    "mpy_et_quant::%s.out" % op for op in ("add", "mul", "clamp", "lut", "quantize_per_tensor", "dequantize_per_tensor")
)


@dataclass
class RowOp:
    """How one instruction maps output rows to input rows."""

    rows: list  # argument positions of the row inputs
    window: Optional[tuple] = None  # (k_eff, stride, pad) on H; None: row i from row i
    padding_arg: Optional[int] = None  # argument position of [ph, pw], rewritten to [0, pw]
    pad_value: Optional[int] = None  # value index of the scalar border bands are padded with


def ints(ir, index):
    """The ints of an IntList value."""
    return [ir.values[j].payload for j in ir.values[index].payload]


def _sizes(ir, index):
    t = ir.tensor(index)
    return None if t is None else t.sizes


def row_op(ir, ins):
    """The RowOp of an instruction, or None when it cannot run by bands
    (not 4-D NCHW, not an op listed here, transposed, or an input whose rows
    do not follow the output's)."""
    out = _sizes(ir, ins.args[-1])
    if out is None or len(out) != 4 or ins.args[-1] != ins.args[-2]:
        return None
    op, a = ins.op, ins.args
    if op == "aten::convolution.out":
        w = _sizes(ir, a[1])
        if len(w) != 4 or ir.values[a[6]].payload or len(_sizes(ir, a[0])) != 4:
            return None
        (sh, _), (ph, _), (dh, _) = ints(ir, a[3]), ints(ir, a[4]), ints(ir, a[5])
        return RowOp([0], (dh * (w[2] - 1) + 1, sh, ph), 4, ir.scalar("Double", 0.0))
    if op == "mpy_et_quant::conv2d_packed.out":
        (kh, _), (sh, _), (ph, _), (dh, _) = (ints(ir, a[i]) for i in (3, 4, 5, 6))
        return RowOp([0], (dh * (kh - 1) + 1, sh, ph), 5, a[8])
    if op == "mpy_et_quant::max_pool2d.out":
        (kh, _), (sh, _), (ph, _), (dh, _) = (ints(ir, a[i]) for i in (1, 2, 3, 4))
        return RowOp([0], (dh * (kh - 1) + 1, sh, ph), 3, ir.scalar("Int", -128))
    if op == "mpy_et_quant::avg_pool2d.out":
        (kh, _), (sh, _) = ints(ir, a[1]), ints(ir, a[2])
        return RowOp([0], (kh, sh, 0))
    if op in _QUANT_ELEMENTWISE or op in INPLACE_OPS:
        rows = []
        for pos, v in enumerate(a[:-2]):
            s = _sizes(ir, v)
            if s is None:
                continue
            if tuple(s) == tuple(out):
                rows.append(pos)
            elif op in INPLACE_OPS and (ir.tensor(v).constant is None or (len(s) >= 2 and s[-2] != 1)):
                return None  # broadcast along H, or a computed operand of another shape
        return RowOp(rows) if rows else None
    return None


def input_rows(op, c, d, h):
    """The real input rows [a, b) of an input of height h that output rows
    [c, d) read, and the rows of padding (top, bottom) a band needs around them."""
    if op.window is None:
        return c, d, 0, 0
    k, s, p = op.window
    lo, hi = c * s - p, (d - 1) * s - p + k
    a, b = max(lo, 0), min(hi, h)
    return a, b, a - lo, hi - b


def own_padding(op, c, d, a, b, top, bottom):
    """Whether a band of a window op that starts at the image's top can keep
    the op's own H padding: rows [a, b) = [0, b) padded by p on both sides
    give exactly output rows [c, d) = [0, d), the extra rows below never
    read (a stride-2 convolution's first band): no constant_pad_nd."""
    if op.window is None or op.padding_arg is None or not top or bottom or a or c:
        return False
    k, s, p = op.window
    return top == p and (b + 2 * p - k) // s + 1 == d


def slice_rows(ir, src, a, b, name):
    """(instruction, value) of aten::slice_copy rows [a, b) of src on dim 2."""
    t = ir.tensor(src)
    out = _tensor_like(ir, t, b - a, name)
    args = [src, ir.scalar("Int", 2), ir.scalar("Int", a), ir.scalar("Int", b), ir.scalar("Int", 1), out, out]
    return Instruction("aten::slice_copy.Tensor_out", args, "patch: rows %d..%d of %s" % (a, b, t.name)), out


def pad_rows(ir, src, top, bottom, value, name):
    """(instruction, value) of aten::constant_pad_nd of src by top/bottom rows of value."""
    t = ir.tensor(src)
    out = _tensor_like(ir, t, t.sizes[2] + top + bottom, name)
    pad = ir.add("IntList", [ir.scalar("Int", v) for v in (0, 0, top, bottom)])
    args = [src, pad, value, out, out]
    return Instruction("aten::constant_pad_nd.out", args, "patch: border padding of %s" % t.name), out


def scatter_rows(ir, dst, src, a, b, source):
    """aten::slice_scatter writing src over rows [a, b) of dst, in place
    (self, out and the return slot are the same value: one buffer)."""
    args = [dst, src, ir.scalar("Int", 2), ir.scalar("Int", a), ir.scalar("Int", b), ir.scalar("Int", 1), dst, dst]
    return Instruction("aten::slice_scatter.out", args, source)


def _tensor_like(ir, t, rows, name):
    sizes = (t.sizes[0], t.sizes[1], rows, t.sizes[3])
    return ir.add("Tensor", TensorValue(t.dtype, sizes, name))

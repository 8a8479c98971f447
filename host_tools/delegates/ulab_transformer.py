"""The ulab partitioner's ops of attention and transformer blocks: what it
claims and their records (mpy_et/backends/ulab_transformer.py runs them).

Data movement (permute, select, slice, expand copies) is worked out here, at
export: the op is run on the input's element indices, and the map from
output to input is cut into blocks of output rows that are one 2-D strided
view of the input (_move_blocks), so the device copies a block per call and
never indexes an element.
"""

import struct

import torch

from host_tools.planning.lifetimes import _tensor_items, outputs_of
from mpy_et.backends import ulab_transformer as T

_F32, _BOOL = 6, 11
MAX_BLOCKS = 64  # more blocks than this and the copy stays portable
_MOVES = ("aten::permute_copy.out", "aten::select_copy.int_out", "aten::slice_copy.Tensor_out", "aten::expand_copy.out", "aten::clone.out")
OPS = _MOVES + (
    "aten::split_with_sizes_copy.out",
    "aten::bmm.out",
    "aten::_softmax.out",
    "aten::native_layer_norm.out",
    "aten::gelu.out",
    "aten::mul.Scalar_out",
    "aten::eq.Scalar_out",
    "aten::logical_not.out",
    "aten::any.out",
    "aten::full_like.out",
    "aten::where.self_out",
)


def _t(ir, a):
    return ir.tensor(a)


def constant(ir, a):
    """A constant's value as a torch tensor."""
    t = ir.tensor(a)
    dtype = {6: torch.float32}[t.dtype]
    return torch.frombuffer(bytearray(t.constant), dtype=dtype).reshape(t.sizes) if t.constant else torch.zeros(t.sizes)


def _runtime(ir, a, dtype=_F32):
    t = ir.tensor(a)
    return t is not None and t.dtype == dtype and ir.tensor(ir.storage_of(a)).constant is None


def _const_or_null(ir, a):
    if ir.values[a].kind == "Null":
        return True
    t = ir.tensor(a)
    return t is not None and t.dtype == _F32 and t.constant is not None


def _scalar(ir, a):
    return ir.values[a].payload


def _ints(ir, a):
    return [ir.values[j].payload for j in ir.values[a].payload]


def _numel(sizes):
    n = 1
    for d in sizes:
        n *= d
    return n


def _rows_cols(sizes):
    cols = sizes[-1] if sizes else 1
    return (_numel(sizes) // cols if cols else 0), cols


def _bits(x):
    return struct.unpack("<i", struct.pack("<f", float(x)))[0]


def _unread(ir, values):
    """None of `values` is read by an instruction, or is a method output or state."""
    owners = {ir.storage_of(v) for v in values}
    if owners & ({ir.storage_of(o) for o in ir.outputs} | {ir.storage_of(s) for s in ir.state}):
        return False
    for ins in ir.instructions:
        made = set(outputs_of(ir, ins)) | {ins.args[-1]}
        for a in ins.args:
            if a not in made and any(ir.storage_of(t) in owners for t in _tensor_items(ir, a)):
                return False
    return True


def claims(ir, ins):
    """Whether the backend takes this instruction (its op is in OPS)."""
    op, a = ins.op, ins.args
    if op == "aten::split_with_sizes_copy.out":
        maps = _runtime(ir, a[0]) and all(_runtime(ir, o) for o in ir.values[a[-1]].payload) and _split_maps(ir, ins)
        n_in = _numel(_t(ir, a[0]).sizes)
        return bool(maps) and all(_how(m, n_in) is not None for m in maps)
    if op == "aten::native_layer_norm.out":
        x = _t(ir, a[0])
        outs = ir.values[a[-1]].payload
        return (
            _runtime(ir, a[0])
            and x.sizes
            and _ints(ir, a[1]) == [x.sizes[-1]]
            and _const_or_null(ir, a[2])
            and _const_or_null(ir, a[3])
            and _runtime(ir, outs[0])
            and _unread(ir, outs[1:])
        )
    out_bool = op in ("aten::eq.Scalar_out", "aten::logical_not.out", "aten::any.out")
    if not _runtime(ir, a[-1], _BOOL if out_bool else _F32):
        return False
    if op in _MOVES:
        return _runtime(ir, a[0]) and move(ir, ins) is not None
    if op == "aten::bmm.out":
        x, y = _t(ir, a[0]), _t(ir, a[1])
        return _runtime(ir, a[0]) and _runtime(ir, a[1]) and len(x.sizes) == len(y.sizes) == 3
    if op == "aten::_softmax.out":
        x = _t(ir, a[0])
        return _runtime(ir, a[0]) and x.sizes and _scalar(ir, a[1]) % len(x.sizes) == len(x.sizes) - 1 and not _scalar(ir, a[2])
    if op == "aten::gelu.out":
        return _runtime(ir, a[0]) and _scalar(ir, a[1]) in ("none", "tanh")
    if op in ("aten::mul.Scalar_out", "aten::eq.Scalar_out"):
        return _runtime(ir, a[0]) and ir.values[a[1]].kind in ("Int", "Double")
    if op == "aten::logical_not.out":
        return _runtime(ir, a[0], _BOOL)
    if op == "aten::any.out":
        x = _t(ir, a[0])
        return _runtime(ir, a[0], _BOOL) and x.sizes and _scalar(ir, a[1]) % len(x.sizes) == len(x.sizes) - 1
    if op == "aten::full_like.out":
        return ir.values[a[1]].kind in ("Int", "Double")
    if op == "aten::where.self_out":
        return _runtime(ir, a[0], _BOOL) and _runtime(ir, a[1]) and _runtime(ir, a[2]) and _where_cols(ir, a) is not None
    return False


def _where_cols(ir, a):
    """The cols of where's cond, self and other: the output's, or 1 (broadcast
    along the last dim, all else equal)."""
    out = _t(ir, a[-1]).sizes
    cols = []
    for i in range(3):
        s = _t(ir, a[i]).sizes
        if tuple(s) == tuple(out):
            cols.append(out[-1] if out else 1)
        elif out and len(s) == len(out) and tuple(s[:-1]) == tuple(out[:-1]) and s[-1] == 1:
            cols.append(1)
        else:
            return None
    return cols


def _index_map(ir, ins):
    """The data movement run on the input's element indices: for each output
    element, the index of the input element it copies (None: not a copy)."""
    op, a = ins.op, ins.args
    sizes = list(_t(ir, a[0]).sizes)
    idx = torch.arange(_numel(sizes)).reshape(sizes)
    if op == "aten::permute_copy.out":
        return idx.permute(_ints(ir, a[1]))
    if op == "aten::select_copy.int_out":
        return idx.select(_scalar(ir, a[1]), _scalar(ir, a[2]))
    if op == "aten::expand_copy.out":
        return idx.expand(_ints(ir, a[1]))
    if op == "aten::clone.out":
        return idx
    if op == "aten::slice_copy.Tensor_out":
        dim = _scalar(ir, a[1]) % len(sizes)
        start, end, step = (None if ir.values[j].kind == "Null" else _scalar(ir, j) for j in a[2:5])
        sl = [slice(None)] * len(sizes)
        sl[dim] = slice(start, end, step)
        return idx[tuple(sl)]
    return None


def move(ir, ins):
    """("alias",) when the output is the input's elements in order, ("range",
    start) when it is a run of them, else the MOVE blocks (_move_blocks), or None."""
    m = _index_map(ir, ins)
    out = _t(ir, ins.args[-1]).sizes
    if m is None or tuple(m.shape) != tuple(out):
        return None
    return _how(m, _numel(_t(ir, ins.args[0]).sizes))


def _split_maps(ir, ins):
    """split_with_sizes_copy's index map of each output (None: not a split the
    backend takes)."""
    a = ins.args
    sizes = list(_t(ir, a[0]).sizes)
    if not sizes:
        return None
    idx = torch.arange(_numel(sizes)).reshape(sizes)
    maps = idx.split(_ints(ir, a[1]), _scalar(ir, a[2]))
    outs = ir.values[a[-1]].payload
    if len(maps) != len(outs) or any(tuple(m.shape) != tuple(_t(ir, o).sizes) for m, o in zip(maps, outs)):
        return None
    return maps


def split_records(ir, ins, slot_of):
    """The records of split_with_sizes_copy's outputs, in order (one slot each)."""
    n_in = _numel(_t(ir, ins.args[0]).sizes)
    outs = ir.values[ins.args[-1]].payload
    return [
        _move_record(_how(m, n_in), _rows_cols(_t(ir, o).sizes), slot_of(ins.args[0]), n_in) for m, o in zip(_split_maps(ir, ins), outs)
    ]


def _how(m, n_in):
    flat = m.flatten()
    if m.numel() and torch.equal(flat, torch.arange(int(flat[0]), int(flat[0]) + m.numel())):
        return ("alias",) if m.numel() == n_in else ("range", int(flat[0]))  # the input, or a run of it: a view
    return _move_blocks(m, n_in)


def _move_blocks(m, n_in):
    """Cut an index map (output-shaped) into blocks: runs of output rows
    (last dim = cols) whose input indices are base + i * rstep + j * cstep;
    each is the view [ra::rs, ca::cstep] of the input seen as [n_in / W, W]
    (a step of 0: one row or column, broadcast by the copy).
    [(out row, rows, W, ra, rs, ca, cstep)], or None (more than MAX_BLOCKS
    blocks, or a row no view reads)."""
    cols = m.shape[-1] if m.dim() else 1
    if not m.numel():
        return None
    rows = m.reshape(-1, cols).tolist()

    def row_step(row):
        step = row[1] - row[0] if cols > 1 else 1
        ok = step >= 0 and all(row[j] == row[0] + j * step for j in range(cols))
        return step if ok else None

    blocks, r = [], 0
    while r < len(rows):
        cstep = row_step(rows[r])
        if cstep is None:
            return None
        n, rstep = 1, None
        while r + n < len(rows) and row_step(rows[r + n]) == cstep:
            step = rows[r + n][0] - rows[r + n - 1][0]
            if step < 0 or (rstep is not None and step != rstep):
                break
            rstep, n = step, n + 1
        base, span = rows[r][0], (cols - 1) * cstep
        if n == 1 or rstep == 0:  # one row (broadcast down the block when rstep is 0)
            blocks.append((r, n, n_in, 0, 0 if n > 1 else 1, base, cstep))
        else:
            for w in [d for d in range(rstep, 0, -1) if rstep % d == 0 and n_in % d == 0]:
                if base % w + span < w:
                    break
            else:
                w = None
            if w is None:
                blocks.append((r, 1, n_in, 0, 1, base, cstep))
                n = 1
            else:
                blocks.append((r, n, w, base // w, rstep // w, base % w, cstep))
        r += n
    return blocks if len(blocks) <= MAX_BLOCKS else None


def _move_record(how, shape, x, n_in):
    """The ALIAS, RANGE or MOVE record of a data movement (move())."""
    rows, cols = shape
    if how == ("alias",):
        return [T.ALIAS, rows, cols, x]
    if how[0] == "range":
        return [T.RANGE, rows, cols, x, n_in, how[1]]
    return [T.MOVE, rows, cols, x, n_in, len(how)] + [w for block in how for w in block]


def record(ir, ins, blob, slot_of, tensor):
    """[opcode, rows, cols, operands...] of one instruction (claims() took it).
    tensor(a): a constant as a torch tensor."""
    a, op = ins.args, ins.op
    if op == "aten::native_layer_norm.out":
        rows, cols = _rows_cols(_t(ir, a[0]).sizes)
        w = None if ir.values[a[2]].kind == "Null" else blob.weights(tensor(ir, a[2]))
        b = None if ir.values[a[3]].kind == "Null" else blob.weights(tensor(ir, a[3]))
        return [T.LAYER_NORM, rows, cols, slot_of(a[0]), w, b, _bits(_scalar(ir, a[4]))]
    rows, cols = _rows_cols(_t(ir, a[-1]).sizes)
    if op in _MOVES:
        return _move_record(move(ir, ins), (rows, cols), slot_of(a[0]), _numel(_t(ir, a[0]).sizes))
    if op == "aten::bmm.out":
        batches, m, k = _t(ir, a[0]).sizes
        return [T.BMM, rows, cols, slot_of(a[0]), slot_of(a[1]), batches, m, k]
    if op == "aten::_softmax.out":
        return [T.SOFTMAX, rows, cols, slot_of(a[0])]
    if op == "aten::gelu.out":
        return [T.GELU, rows, cols, slot_of(a[0]), 1 if _scalar(ir, a[1]) == "tanh" else 0]
    if op == "aten::mul.Scalar_out":
        return [T.MUL_SCALAR, rows, cols, slot_of(a[0]), _bits(_scalar(ir, a[1]))]
    if op == "aten::eq.Scalar_out":
        return [T.EQ_SCALAR, rows, cols, slot_of(a[0]), _bits(_scalar(ir, a[1]))]
    if op == "aten::logical_not.out":
        return [T.NOT, rows, cols, slot_of(a[0])]
    if op == "aten::any.out":
        x = _t(ir, a[0]).sizes
        return [T.ANY, _numel(x) // x[-1], 1, slot_of(a[0]), x[-1]]
    if op == "aten::full_like.out":
        return [T.FULL, rows, cols, _bits(_scalar(ir, a[1]))]
    if op == "aten::where.self_out":
        return [T.WHERE, rows, cols, slot_of(a[0]), slot_of(a[1]), slot_of(a[2])] + _where_cols(ir, a)
    raise AssertionError(op)

"""The ulab backend, host side: what it claims and its blob.

partition() claims fp32 linear (addmm / mm with constant weights),
convolution (groups 1 or depthwise, batch 1, 1-D or 2-D; transposed ones
whose output is s times the input), and the ops around them (relu,
hardtanh, tanh, sigmoid, add and mul of same-shaped tensors, max pooling,
mean over the last dim, global average pooling, nearest upsampling, and
those of attention: ulab_transformer.py): runs of consecutive such
instructions holding at least one linear, convolution or bmm, split so that
only float32 tensors cross a call's boundary. preprocess() writes the run as
the blob mpy_et/backends/ulab_backend.py reads (its docstring has the
format), with the weights in the layouts ulab uses in place: linear weights
[K, N], convolution weights [O, g * C] per group of g taps (tap-major
im2col rows), depthwise weights [kh * kw, C], an output phase's [O, taps *
C] (PHASE_CONV: a transposed convolution, or a nearest upsampling and the
convolution reading it, fused here).
"""

import struct

import torch

from host_tools.delegates import ulab_phases as PH
from host_tools.delegates import ulab_transformer as HT
from host_tools.delegates.ulab_transformer import constant as _tensor
from host_tools.lowering.ir import tensor_bytes
from host_tools.planning.lifetimes import outputs_of
from mpy_et.backends import ulab_backend as B

if B.np is None:  # CPython has no ulab: numpy stands in, so exported programs load here (export's check, tests)
    import numpy

    B.use(numpy)

BACKEND_ID = "UlabBackend"
_F32 = 6
# largest im2col matrix a convolution gets on the device (one scratch buffer per
# delegate call); more taps than fit are run in groups, a dot per group
IM2COL_MAX_BYTES = 16384
_HEAVY = ("aten::addmm.out", "aten::mm.out", "aten::convolution.out", "aten::bmm.out")
_UNARY = {"aten::relu.out": B.RELU, "aten::hardtanh.out": B.CLAMP, "aten::tanh.out": B.TANH, "aten::sigmoid.out": B.SIGMOID}
_BINARY = {"aten::add.out": B.ADD, "aten::mul.out": B.MUL, "aten::sub.out": B.SUB}


def partition(ir):
    """Runs (lists of consecutive instruction indices) the backend takes."""
    runs, run = [], []
    for i, ins in enumerate(ir.instructions):
        if _claims(ir, ins):
            run.append(i)
            continue
        runs.append(run)
        run = []
    runs.append(run)
    runs = [r for part in runs for r in _float_boundary(ir, part)]
    return [r for r in runs if any(ir.instructions[i].op in _HEAVY for i in r)]


def _float_boundary(ir, run):
    """The run, or the runs it splits into so that every tensor crossing a
    delegate call's boundary is float32 (a mask stays inside)."""
    from host_tools.delegates import _boundary

    if not run:
        return []
    inputs, outputs = _boundary(ir, run)
    bad = {ir.storage_of(t) for t in inputs + outputs if ir.tensor(t).dtype != _F32}
    if not bad:
        return [run]
    for k, i in enumerate(run):  # leave out the first instruction touching a non-float tensor
        ins = ir.instructions[i]
        if any(ir.storage_of(t) in bad for a in ins.args for t in HT._tensor_items(ir, a)):
            return _float_boundary(ir, run[:k]) + _float_boundary(ir, run[k + 1 :])
    return [run]


def _t(ir, a):
    return ir.tensor(a)


def _runtime_f32(ir, a):
    t = ir.tensor(a)
    return t is not None and t.dtype == _F32 and ir.tensor(ir.storage_of(a)).constant is None


def _const_f32(ir, a):
    t = ir.tensor(a)
    return t is not None and t.dtype == _F32 and t.constant is not None


def _scalar(ir, a):
    return ir.values[a].payload


def _ints(ir, a):
    return [ir.values[j].payload for j in ir.values[a].payload]


def _claims(ir, ins):
    a = ins.args
    op = ins.op
    if ins.delegate is not None:
        return False
    if op in HT.OPS:
        return bool(HT.claims(ir, ins))
    if not _runtime_f32(ir, a[-1]) or len(outputs_of(ir, ins)) != 1:
        return False
    if op == "aten::addmm.out":
        bias, x, w = _t(ir, a[0]), _t(ir, a[1]), _t(ir, a[2])
        return (
            _runtime_f32(ir, a[1])
            and _const_f32(ir, a[2])
            and _const_f32(ir, a[0])
            and len(x.sizes) == 2
            and bias.sizes in ((w.sizes[1],), (1, w.sizes[1]))
            and _scalar(ir, a[3]) == 1
            and _scalar(ir, a[4]) == 1
        )
    if op == "aten::mm.out":
        return _runtime_f32(ir, a[0]) and _const_f32(ir, a[1]) and len(_t(ir, a[0]).sizes) == 2
    if op == "aten::convolution.out":
        x, w = _t(ir, a[0]), _t(ir, a[1])
        if not (_runtime_f32(ir, a[0]) and _const_f32(ir, a[1])) or len(x.sizes) not in (3, 4) or x.sizes[0] != 1:
            return False
        if ir.values[a[2]].kind != "Null" and not _const_f32(ir, a[2]):
            return False
        groups, c, o = _scalar(ir, a[8]), x.sizes[1], w.sizes[0]
        if _scalar(ir, a[6]):  # transposed: as output phases (PHASE_CONV)
            return PH.transposed(ir, a) is not None
        return groups == 1 or (groups == c == o and w.sizes[1] == 1)
    if op in _UNARY:
        return _runtime_f32(ir, a[0])
    if op in _RESHAPING:
        return _runtime_f32(ir, a[0]) and _RESHAPING[op](ir, a) is not None
    if op in _BINARY:  # same elements (leading 1s aside); one side may be a constant
        out = _squeezed(_t(ir, a[-1]).sizes)
        sides = [_runtime_f32(ir, a[i]) or _const_f32(ir, a[i]) for i in (0, 1)]
        same = all(sides) and _squeezed(_t(ir, a[0]).sizes) == _squeezed(_t(ir, a[1]).sizes) == out
        return same and (_runtime_f32(ir, a[0]) or _runtime_f32(ir, a[1])) and (op == "aten::mul.out" or _scalar(ir, a[2]) == 1)
    return False


class _Blob:
    """Op records (int32 words; weights as ("w", offset in data)) and float data."""

    def __init__(self):
        self.ops = []
        self.data = bytearray()
        self.placed = {}  # bytes -> offset in data

    def weights(self, t):
        """Place a float32 tensor in the data, 16-byte aligned, once (a
        recurrent layer's weights serve every step); its marker."""
        data = tensor_bytes(t.to(torch.float32))
        if data not in self.placed:
            self.data += b"\0" * (-len(self.data) % 16)
            self.placed[data] = len(self.data)
            self.data += data
        return ("w", self.placed[data])

    def build(self, n_in, outputs, n_slots):
        words = [0x31424C55, n_in, len(outputs), n_slots, len(self.ops), 0] + list(outputs)
        for op in self.ops:
            words += [len(op) + 1] + list(op)
        words[5] = len(words)
        base = (4 * len(words) + 15) // 16 * 16
        flat = [base + w[1] if isinstance(w, tuple) else (-1 if w is None else w) for w in words]
        head = struct.pack("<%di" % len(flat), *flat)
        return head + b"\0" * (base - len(head)) + bytes(self.data)


def _squeezed(sizes):
    """sizes without leading 1s."""
    sizes = list(sizes)
    while sizes and sizes[0] == 1:
        sizes.pop(0)
    return sizes


def _rows_cols(sizes):
    cols = sizes[-1] if sizes else 1
    n = 1
    for s in sizes:
        n *= s
    return (n // cols if cols else 0), cols


def preprocess(ir, instructions, inputs, outputs):
    """The blob of a run of instructions (see the module docstring)."""
    blob = _Blob()
    slot = {t: i for i, t in enumerate(inputs)}
    owner_slot = {}

    def slot_of(a):
        if a in slot:
            return slot[a]
        return owner_slot[ir.storage_of(a)]

    n_slots = len(inputs)
    fused = set()
    for k, ins in enumerate(instructions):
        if k in fused:
            continue
        if ins.op == "aten::split_with_sizes_copy.out":  # a record and a slot per output
            for o, rec in zip(outputs_of(ir, ins), HT.split_records(ir, ins, slot_of)):
                owner_slot[ir.storage_of(o)] = n_slots
                blob.ops.append([rec[0], n_slots] + rec[1:])
                n_slots += 1
            continue
        up = PH.upsampled_conv(ir, instructions, k, outputs)
        if up is not None:  # nearest upsampling and the convolution reading it: one PHASE_CONV
            fused.add(k + 1)
            ins = instructions[k + 1]
            rec = PH.record(ir, blob, slot_of, ins.args, *up)
        else:
            rec = _record(ir, ins, blob, slot_of)
        out = outputs_of(ir, ins)[0]
        owner_slot[ir.storage_of(out)] = n_slots
        blob.ops.append([rec[0], n_slots] + rec[1:])
        n_slots += 1
    outs = [owner_slot[ir.storage_of(o)] for o in outputs]
    return blob.build(len(inputs), outs, n_slots), []


def _record(ir, ins, blob, slot_of):
    """[opcode, rows, cols, operands...] of one instruction."""
    a, op = ins.args, ins.op
    y = ir.tensor(a[-1])
    if op in ("aten::addmm.out", "aten::mm.out"):
        x, w = (a[1], a[2]) if op == "aten::addmm.out" else (a[0], a[1])
        m, k = ir.tensor(x).sizes
        n = ir.tensor(w).sizes[1]
        b = blob.weights(_tensor(ir, a[0]).reshape(n)) if op == "aten::addmm.out" else None
        return [B.LINEAR, m, n, slot_of(x), k, blob.weights(_tensor(ir, w)), b]
    if op == "aten::convolution.out":
        if _scalar(ir, a[6]):
            return PH.record(ir, blob, slot_of, a, *PH.transposed(ir, a))
        return _conv_record(ir, a, blob, slot_of)
    if op in HT.OPS:
        return HT.record(ir, ins, blob, slot_of, _tensor)
    rows, cols = _rows_cols(y.sizes)
    if op in _BINARY:
        for i in (0, 1):
            if _const_f32(ir, a[i]):  # x op w, or w op x (i = 0): the constant in the blob
                return [B.BINARY_W, rows, cols, slot_of(a[1 - i]), blob.weights(_tensor(ir, a[i])), 2 * _BINARY[op] + (i == 0)]
        return [_BINARY[op], rows, cols, slot_of(a[0]), slot_of(a[1])]
    if op in _RESHAPING:
        code, rows, cols, extra = _RESHAPING[op](ir, a)
        return [code, rows, cols, slot_of(a[0])] + extra
    rec = [_UNARY[op], rows, cols, slot_of(a[0])]
    if op == "aten::hardtanh.out":
        rec += list(struct.unpack("<2i", struct.pack("<2f", _scalar(ir, a[1]), _scalar(ir, a[2]))))
    return rec


def _conv_record(ir, a, blob, slot_of):
    x, w, y = ir.tensor(a[0]), _tensor(ir, a[1]), ir.tensor(a[-1])
    stride, padding, dilation = _ints(ir, a[3]), _ints(ir, a[4]), _ints(ir, a[5])
    if len(x.sizes) == 3:  # 1-D: a 2-D convolution of height 1
        c, h, wd = x.sizes[1], 1, x.sizes[2]
        w = w.unsqueeze(2)
        stride, padding, dilation = [1] + stride, [0] + padding, [1] + dilation
        oh, ow = 1, y.sizes[2]
    else:
        c, h, wd = x.sizes[1:]
        oh, ow = y.sizes[2:]
    o, kh, kw = w.shape[0], w.shape[2], w.shape[3]
    taps = kh * kw
    wide = _wide(c, o if _scalar(ir, a[8]) == 1 else 1, taps, oh, ow, wd + 2 * padding[1], stride, padding)
    n = oh * (wd + 2 * padding[1]) if wide else oh * ow  # wide: rows of the padded width
    if _scalar(ir, a[8]) != 1:
        g, weight = B.DEPTHWISE, w.reshape(o, taps).t()  # [taps, C]
    else:  # taps in groups of g, each an im2col matrix of at most IM2COL_MAX_BYTES: weights [O, g*C] per group
        g = max(1, min(taps, IM2COL_MAX_BYTES // (4 * c * n)))
        tap_major = w.permute(0, 2, 3, 1).reshape(o, taps * c)
        weight = torch.cat([tap_major[:, k * c : min(k + g, taps) * c].flatten() for k in range(0, taps, g)])
    bias = None if ir.values[a[2]].kind == "Null" else blob.weights(_tensor(ir, a[2]))
    geometry = [c, h, wd, kh, kw, stride[0], stride[1], padding[0], padding[1], dilation[0], dilation[1], g, oh, ow]
    return [B.CONV, o, oh * ow, slot_of(a[0])] + geometry + [blob.weights(weight), bias, int(wide)]


# a copy (two ulab calls and the loop around them) costs about as much as this
# many multiply-adds of ulab's dot (circuitpython target: ~3 us against ~4.5 ns)
COPY_MACS = 600


def _wide(c, o, taps, oh, ow, wp, stride, padding):
    """Whether a stride-1 convolution runs on rows of the padded width (a copy
    per tap, wp - ow wasted columns per row) rather than gathered (a copy per
    tap and channel or output row, no waste): the cheaper in ulab. o: the
    output channels an input channel feeds (1 for depthwise)."""
    if stride != [1, 1] or (taps == 1 and padding == [0, 0]):
        return False
    waste = o * taps * c * oh * (wp - ow)
    return waste <= COPY_MACS * taps * (min(c, oh) - 1)


def _numel(sizes):
    n = 1
    for d in sizes:
        n *= d
    return n


def _max_pool(ir, a):
    """amax over the tiles of max pooling's view [..., A, kh, B, kw] (host_tools/lowering/pool_pass.py)."""
    sizes = ir.tensor(a[0]).sizes
    n = len(sizes)
    dims = sorted(d % n for d in _ints(ir, a[1])) if n else []
    if n < 4 or dims != [n - 3, n - 1] or _scalar(ir, a[2]):
        return None
    return B.MAX_POOL, _numel(sizes[:-3]), sizes[-2], [sizes[-3], sizes[-1]]


def _mean(ir, a):
    """mean over the last dim (no dtype)."""
    sizes = ir.tensor(a[0]).sizes
    if not sizes or ir.values[a[1]].kind != "IntList" or ir.values[a[3]].kind != "Null":
        return None
    if [d % len(sizes) for d in _ints(ir, a[1])] != [len(sizes) - 1] or not sizes[-1]:
        return None
    return B.MEAN, _numel(sizes[:-1]), 1, [sizes[-1]]


def _global_avg_pool(ir, a):
    """avg_pool2d whose window is the whole plane: a mean per channel."""
    sizes = ir.tensor(a[0]).sizes
    if len(sizes) not in (3, 4) or _ints(ir, a[1]) != list(sizes[-2:]) or set(_ints(ir, a[3])) != {0}:
        return None
    if ir.values[a[6]].kind != "Null" or ir.tensor(a[-1]).sizes[-2:] != (1, 1):
        return None
    return B.MEAN, _numel(sizes[:-2]), 1, [sizes[-2] * sizes[-1]]


def _upsample(ir, a):
    """nearest upsampling by whole factors (batch 1)."""
    x, y = ir.tensor(a[0]).sizes, ir.tensor(a[-1]).sizes
    if len(x) != 4 or x[0] != 1 or y[2] % x[2] or y[3] % x[3]:
        return None
    sh, sw = y[2] // x[2], y[3] // x[3]
    if ir.values[a[2]].kind == "DoubleList" and list(ir.values[a[2]].payload) != [float(sh), float(sw)]:
        return None
    return B.UPSAMPLE, x[1] * y[2], y[3], [sh, sw]


_RESHAPING = {
    "aten::amax.out": _max_pool,
    "aten::mean.out": _mean,
    "aten::avg_pool2d.out": _global_avg_pool,
    "aten::upsample_nearest2d.vec_out": _upsample,
}

"""The ulab partitioner's output-phase convolutions (PHASE_CONV, run by
mpy_et/backends/ulab_conv.py prepare_phases): a transposed convolution whose
output is s times its input, and a whole-factor nearest upsampling read only
by a stride-1 convolution keeping its size, both as s x s output phases.
Phase (py, px) is the output pixels (s i + py, s j + px): a stride-1
convolution of the small input whose taps (input offsets) carry the summed
weights of the kernel taps landing on them, found here at export.
"""

import torch

from host_tools.delegates.ulab_transformer import _ints, _scalar, _tensor_items, constant
from host_tools.planning.lifetimes import outputs_of
from mpy_et.backends import ulab_backend as B

# largest im2col matrix of one output phase of a PHASE_CONV (one dot per phase)
PHASE_MAX_BYTES = 32768


def transposed(ir, a):
    """(x value, weights [O, C, kh, kw], s, row taps, col taps) of a transposed
    convolution the device runs as s x s output phases: 2-D, batch 1, groups
    1, no dilation, the same stride both ways and an output s times the input;
    else None. taps[p]: [(input offset, kernel index)] of output phase p."""
    x, y, w = ir.tensor(a[0]), ir.tensor(a[-1]), ir.tensor(a[1])
    stride, padding, dilation = _ints(ir, a[3]), _ints(ir, a[4]), _ints(ir, a[5])
    if len(x.sizes) != 4 or x.sizes[0] != 1 or _scalar(ir, a[8]) != 1 or dilation != [1, 1] or stride[0] != stride[1]:
        return None
    s = stride[0]
    if list(y.sizes[2:]) != [s * x.sizes[2], s * x.sizes[3]]:
        return None
    wt = constant(ir, a[1]).permute(1, 0, 2, 3)  # [C, O, kh, kw] -> [O, C, kh, kw]

    def taps(p, k):
        return [[((q + p - d) // s, d) for d in range(k) if (q + p - d) % s == 0] for q in range(s)]

    phases = (a[0], wt, s, taps(padding[0], w.sizes[2]), taps(padding[1], w.sizes[3]))
    if not all(phases[3]) or not all(phases[4]):  # a phase no kernel tap reaches (kernel < stride)
        return None
    return phases if _phase_bytes(x.sizes[1], x.sizes[2], x.sizes[3], *phases[2:]) <= PHASE_MAX_BYTES else None


def upsampled_conv(ir, instructions, k, outputs):
    """The PHASE_CONV of instructions[k], a whole-factor nearest upsampling
    read only by instructions[k + 1], a stride-1 convolution (groups 1, no
    dilation) keeping its size: (x value, weights, s, row taps, col taps), or None."""
    if k + 1 >= len(instructions) or instructions[k].op != "aten::upsample_nearest2d.vec_out":
        return None
    up, conv = instructions[k], instructions[k + 1]
    a = conv.args
    if conv.op != "aten::convolution.out" or _scalar(ir, a[6]) or _scalar(ir, a[8]) != 1:
        return None
    u = ir.storage_of(up.args[-1])
    if ir.storage_of(a[0]) != u or u in {ir.storage_of(o) for o in outputs} or _readers(ir, u) != 1:
        return None
    x, y = ir.tensor(up.args[0]).sizes, ir.tensor(up.args[-1]).sizes
    s = y[2] // x[2]
    w = ir.tensor(a[1]).sizes
    if y[3] != s * x[3] or _ints(ir, a[3]) != [1, 1] or _ints(ir, a[5]) != [1, 1] or list(ir.tensor(a[-1]).sizes[2:]) != list(y[2:]):
        return None
    padding = _ints(ir, a[4])

    def taps(p, k):
        return [[((q + d - p) // s, d) for d in range(k)] for q in range(s)]

    phases = (up.args[0], constant(ir, a[1]), s, taps(padding[0], w[2]), taps(padding[1], w[3]))
    return phases if _phase_bytes(x[1], x[2], x[3], *phases[2:]) <= PHASE_MAX_BYTES else None


def _readers(ir, owner):
    """Instructions reading the storage `owner`."""
    n = 0
    for ins in ir.instructions:
        made = set(outputs_of(ir, ins)) | {ins.args[-1]}
        if any(ir.storage_of(t) == owner for a in ins.args if a not in made for t in _tensor_items(ir, a)):
            n += 1
    return n


def _pads(row_taps, col_taps):
    rs = [r for p in row_taps for r, _ in p]
    cs = [c for p in col_taps for c, _ in p]
    return max(0, -min(rs)), max(0, max(rs)), max(0, -min(cs)), max(0, max(cs))


def _phase_bytes(c, h, wd, s, row_taps, col_taps):
    """The largest im2col matrix of a phase (its taps x C rows, H x padded width)."""
    pt, pb, pl, pr = _pads(row_taps, col_taps)
    taps = max(len({r for r, _ in rt}) * len({q for q, _ in ct}) for rt in row_taps for ct in col_taps)
    return 4 * taps * c * h * (pl + wd + pr)


def record(ir, blob, slot_of, conv_args, x, weight, s, row_taps, col_taps):
    """[PHASE_CONV, O, OH * OW, operands...]: per phase, its taps (input
    offsets) with the weights of the kernel taps landing on each summed."""
    c, h, wd = ir.tensor(x).sizes[1:]
    o = weight.shape[0]
    pt, pb, pl, pr = _pads(row_taps, col_taps)
    bias = None if ir.values[conv_args[2]].kind == "Null" else blob.weights(constant(ir, conv_args[2]))
    rec = [B.PHASE_CONV, o, s * h * s * wd, slot_of(x), c, h, wd, s, pt, pb, pl, pr, bias, s * s]
    for py in range(s):
        for px in range(s):
            taps = {}
            for r, dy in row_taps[py]:
                for q, dx in col_taps[px]:
                    taps[(r, q)] = taps.get((r, q), 0) + weight[:, :, dy, dx]
            keys = sorted(taps)
            rec += [len(keys), blob.weights(torch.cat([taps[key] for key in keys], dim=1))]
            for r, q in keys:
                rec += [r + pt, q + pl]
    return rec

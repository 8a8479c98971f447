"""aten::cat.out: concatenate tensors along dim. Any dtype (all inputs of
out's dtype); legacy empty 1-D inputs (shape [0]) are skipped, as torch does.

The step does not allocate: up to _MAX_SLICES contiguous chunks are copied
as byte ranges (memoryviews cut at load time); more chunks (e.g. cat along
the last dim of a tall tensor) are copied element by element.
"""

from mpy_et.errors import INVALID_TYPE
from mpy_et.port import const
from portable_kernels.util import checks, loops

_MAX_SLICES = const(64)


def cat_out(tensors, dim, out):
    what = "cat"
    if not isinstance(tensors, (list, tuple)) or not tensors:
        checks.fail("%s: expected a non-empty list of tensors, got %r" % (what, tensors))
    checks.is_tensor(out, what + " out")
    for i, t in enumerate(tensors):
        checks.is_tensor(t, "%s tensors[%d]" % (what, i))
        if t.dtype != out.dtype:
            checks.fail("%s: tensors[%d] is %s but out is %s" % (what, i, checks.shape_str(t), checks.shape_str(out)), INVALID_TYPE)
    parts = [t for t in tensors if tuple(t.sizes) != (0,)]
    if not parts:
        checks.out_shape(out, (0,), what)
        return None
    ref = parts[0]
    nd = len(ref.sizes)
    if nd == 0:
        checks.fail("%s: zero-dimensional tensors cannot be concatenated" % what)
    d = checks.norm_dim(dim, nd, what)
    total = 0
    for t in parts:
        if len(t.sizes) != nd or any(t.sizes[i] != ref.sizes[i] for i in range(nd) if i != d):
            checks.fail("%s: %s and %s differ outside dim %d" % (what, checks.shape_str(ref), checks.shape_str(t), d))
        total += t.sizes[d]
    checks.out_shape(out, tuple(ref.sizes[:d]) + (total,) + tuple(ref.sizes[d + 1 :]), what)
    outer = loops.numel(ref.sizes[:d])
    inner = loops.numel(ref.sizes[d + 1 :])
    parts = [t for t in parts if t.numel]
    if not parts or out.numel == 0:
        return None
    if outer * len(parts) <= _MAX_SLICES:
        return _slices(parts, out, outer, inner)
    dst, units = loops.copy_view(out)
    srcs = [loops.copy_view(t)[0] for t in parts]
    chunks = [t.sizes[d] * inner * units for t in parts]
    starts = []
    pos = 0
    for c in chunks:
        starts.append(pos)
        pos += c
    return _cat, (srcs, dst, len(parts), outer, chunks, starts, total * inner * units)


def _slices(parts, out, outer, inner):
    item = out.nbytes // out.numel
    row = out.nbytes // outer
    dst, src = [], []
    pos = 0
    for t in parts:
        mv = t.buffer
        c = t.numel // outer * item
        for r in range(outer):
            src.append(mv[r * c : (r + 1) * c])
            dst.append(out.buffer[r * row + pos : r * row + pos + c])
        pos += c
    return loops.copy_bytes, (dst, src, len(dst))


def _cat(ctx):
    srcs, o, nparts, outer, chunks, starts, row = ctx
    for i in range(nparts):
        x = srcs[i]
        c = chunks[i]
        oi = starts[i]
        xi = 0
        for _ in range(outer):
            for q in range(oi, oi + c):
                o[q] = x[xi]
                xi += 1
            oi += row

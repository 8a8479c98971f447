"""The ulab backend's convolution (groups 1 or depthwise, batch 1): its
record's operands are in mpy_et/backends/ulab_backend.py (CONV).

ulab 6.5.3 has no out= for dot and copies the source of every slice
assignment (a temporary as large as the slice), so a copy here is
`dst[:] = 0.0; dst += src`: two calls that allocate ~350 bytes whatever the
size. Everything a convolution reads is a view made at load: the input is
copied into a zero-padded buffer (one for all the call's convolutions; its
border is zeroed by a call per padding row and column when convolutions of
several geometries share it), and each tap of every output pixel is a view of it:

- "wide" (stride 1, when the host finds it cheaper: host_tools/delegates/
  ulab.py, _wide): output rows of the padded width (wp = W + 2 pw, ow of
  them real), so tap (dy, dx) of all pixels is one 2-D view
  [C, OH * wp] of the padded input at offset dy*dh*wp + dx*dw (a slack row
  per channel keeps the last taps in bounds); the columns past the edge are
  dropped at the end (the result is a view [O * OH, OW]; the next op's
  reshape or elementwise call makes it contiguous).
- otherwise: each tap is gathered into the im2col rows, one strided view
  per output row or per channel (whichever is fewer); made at load, or at
  each call past GATHER_VIEWS copies (RAM: ~180 bytes a view pair).

Taps are dotted in groups of g (the host's choice, IM2COL_MAX_BYTES): the
group's taps are copied into one im2col matrix [g * C, N] and multiplied by
the weights [O, g * C] (ulab's dot is ~2x slower on a strided view than on
contiguous rows, so even g = 1 copies). Depthwise (g = 0): each tap's rows
times a weight column, summed in place. Allocation per call: each group's dot result (O x N floats;
ulab's), the wide result's contiguous copy, and ~350 bytes per copy.
"""

try:
    from ulab import numpy as np
except ImportError:
    np = None

F32 = None if np is None else np.float
DEPTHWISE = 0
# a convolution gathering more copies than this (taps x min(C, OH)) makes their
# views at each call rather than keep them (~180 bytes of heap a copy)
GATHER_VIEWS = 64


def use(module):
    """Run on `module` (numpy's API) instead of ulab (ulab_backend.use())."""
    global np, F32
    np, F32 = module, module.float32


def scratch(h, op):
    """Grow the shared buffers (h.cols_bytes: im2col rows, h.pad_bytes: the
    padded input) for a convolution record; h.geometries: the padded inputs'."""
    ch, hh, ww, kh, kw, sh, sw, ph, pw = op[5:14]
    g, oh, ow = op[16], op[17], op[18]
    if _direct(kh, kw, sh, sw, ph, pw):
        return
    wide = op[21] and sh == 1 and sw == 1
    pitch = hh + 2 * ph + (1 if wide else 0)
    h.pad_bytes = max(h.pad_bytes, 4 * ch * pitch * (ww + 2 * pw))
    h.geometries.add((ch, hh, ww, ph, pw, pitch))
    h.cols_bytes = max(h.cols_bytes, 4 * (g or 1) * ch * oh * ((ww + 2 * pw) if wide else ow))


def _direct(kh, kw, sh, sw, ph, pw):
    """1x1, stride 1, no padding: the input is the im2col matrix."""
    return kh * kw == 1 and sh == 1 and sw == 1 and ph == 0 and pw == 0


def prepare(h, op, weights):
    """(function, out slot, in slot, ...) of a convolution record; the views it
    reads (load time). weights(off, n, shape): the blob's floats, in place."""
    _, out, o, p, x, ch, hh, ww, kh, kw, sh, sw, ph, pw, dh, dw, g, oh, ow, w, b, wide = op
    kk = kh * kw
    if g == DEPTHWISE:
        weight = [weights(w + 4 * ch * k, ch, (ch, 1)) for k in range(kk)]
    else:
        weight = [weights(w + 4 * o * ch * k, o * ch * min(g, kk - k), (o, ch * min(g, kk - k))) for k in range(0, kk, g)]
    bias = weights(b, o, (o, 1))
    if _direct(kh, kw, sh, sw, ph, pw):
        return (_conv_direct, out, x, (ch, hh * ww), weight[0], bias, g)
    wide = wide and sh == 1 and sw == 1
    wp = ww + 2 * pw
    pitch = hh + 2 * ph + (1 if wide else 0)  # rows per channel in the padded buffer
    pad, zero, fill = _padded(h, ch, hh, ww, ph, ph, pw, pw, pitch)
    n = oh * wp if wide else oh * ow
    cols = np.frombuffer(h.cols, dtype=F32, count=(g or 1) * ch * n).reshape(((g or 1) * ch, n))
    # per tap: (copies into the im2col rows, (weights, matrix) after a group's last tap, depthwise weights)
    flat = pad.reshape((ch, pitch * wp))
    steps = []
    for k in range(kk):
        j = k % g if g else 0
        rows = cols[j * ch : j * ch + ch, :]
        y0, x0 = (k // kw) * dh, (k % kw) * dw
        if wide:
            # ulab's dot is ~2x slower on a strided view than on contiguous rows: copied
            copies = [(rows, flat[:, y0 * wp + x0 : y0 * wp + x0 + n])]
        else:
            copies = (pad, rows, pitch, y0, x0, ch, sh, sw, oh, ow)  # gathered per call (_gather)
            if kk * min(ch, oh) <= GATHER_VIEWS:
                copies = _gather_views(*copies)
        mat = None
        if g and (j == g - 1 or k == kk - 1):
            mat = weight[k // g], cols[0 : (j + 1) * ch, :]
        steps.append((copies, mat, weight[k] if g == DEPTHWISE else None, rows))
    crop = (o * oh, wp, ow) if wide and wp != ow else None
    return (_conv, out, x, (ch * hh, ww), fill, steps, bias, crop, zero)


def _padded(h, ch, hh, ww, pt, pb, pl, pr, pitch):
    """The padded input buffer [C * pitch, pl + W + pr] (one for all
    convolutions), the views of its border to zero before each fill when
    convolutions of other geometries share it (the padding rows above and
    below every channel and the padding columns; the slack row is only read
    for columns past the edge, which are dropped), and the fill's views
    (_fill_views): made once per geometry (h.padded), shared by its convolutions."""
    key = (ch, hh, ww, pt, pb, pl, pr, pitch)
    if key in h.padded:
        return h.padded[key]
    wp = pl + ww + pr
    pad = np.frombuffer(h.pad, dtype=F32, count=ch * pitch * wp).reshape((ch * pitch, wp))
    zero = []
    if len(h.geometries) > 1:
        last = (ch - 1) * pitch + 1
        zero = [pad[r : r + last : pitch, :] for r in list(range(pt)) + list(range(pt + hh, pt + hh + pb))]
        if pl:
            zero.append(pad[:, 0:pl])
        if pr:
            zero.append(pad[:, pl + ww : wp])
    h.padded[key] = pad, zero, _fill_views(pad, ch, hh, ww, pt, pl, pitch)
    return h.padded[key]


def _fill_views(pad, ch, hh, ww, ph, pw, pitch):
    """(view of the padded buffer, rows of the input [C * H, W] it takes) per
    copy: one per input row across the channels, or one per channel when there
    are fewer channels than rows."""
    if hh <= ch:
        return [(pad[ph + r : ph + r + (ch - 1) * pitch + 1 : pitch, pw : pw + ww], r, r + (ch - 1) * hh + 1, hh) for r in range(hh)]
    return [(pad[k * pitch + ph : k * pitch + ph + hh, pw : pw + ww], k * hh, k * hh + hh, 1) for k in range(ch)]


def _gather_views(pad, rows, pitch, y0, x0, ch, sh, sw, oh, ow):
    """Tap (y0, x0) of every output pixel of a strided convolution into its
    im2col rows [C, OH * OW]: (rows view, padded input view) pairs, one per
    channel or per output row (whichever is fewer)."""
    span = (ow - 1) * sw + 1
    if ch < oh:
        return [
            (rows[k].reshape((oh, ow)), pad[k * pitch + y0 : k * pitch + y0 + (oh - 1) * sh + 1 : sh, x0 : x0 + span : sw])
            for k in range(ch)
        ]
    last = (ch - 1) * pitch + 1
    return [(rows[:, oy * ow : oy * ow + ow], pad[oy * sh + y0 : oy * sh + y0 + last : pitch, x0 : x0 + span : sw]) for oy in range(oh)]


def _gather(pad, rows, pitch, y0, x0, ch, sh, sw, oh, ow):
    """_gather_views' copies, with views made now (allocates them: ~200 bytes a copy)."""
    for dst, src in _gather_views(pad, rows, pitch, y0, x0, ch, sh, sw, oh, ow):
        copy(dst, src)


def copy(dst, src):
    """dst[...] = src without ulab's temporary copy of src (does not allocate
    more than ~350 bytes)."""
    dst[:] = 0.0
    dst += src


def _conv_direct(slots, c):
    x = slots[c[2]].reshape(c[3])
    y = x * c[4] if c[6] == DEPTHWISE else np.dot(c[4], x)
    if c[5] is not None:
        y += c[5]  # in place: y is this op's own result
    slots[c[1]] = y


def _conv(slots, c):
    x = slots[c[2]].reshape(c[3])
    for view in c[8]:  # the border, when another geometry wrote over it
        view[:] = 0.0
    for view, a, b, step in c[4]:  # into the zero-padded buffer
        copy(view, x[a:b:step, :])
    y = None
    for copies, mat, dw_weight, rows in c[5]:
        if isinstance(copies, tuple):
            _gather(*copies)
        else:
            for dst, src in copies:
                copy(dst, src)
        if dw_weight is not None:  # depthwise: this tap's rows times its weights, summed
            if y is None:
                y = rows * dw_weight
            else:
                rows *= dw_weight  # in place
                y += rows
        elif mat is not None:  # a group of taps in the matrix: its dot
            t = np.dot(mat[0], mat[1])
            if y is None:
                y = t
            else:
                y += t  # in place
    if c[6] is not None:
        y += c[6]
    crop = c[7]
    if crop is not None:  # the real columns of the padded-width rows: a view [O * OH, OW]
        y = y.reshape((crop[0], crop[1]))[:, 0 : crop[2]]
    slots[c[1]] = y


def scratch_phases(h, op):
    """scratch() for a PHASE_CONV record."""
    ch, hh, ww, s, pt, pb, pl, pr = op[5:13]
    pitch, wp = hh + pt + pb + 1, pl + ww + pr
    h.pad_bytes = max(h.pad_bytes, 4 * ch * pitch * wp)
    h.geometries.add((ch, hh, ww, pt, pl, pitch, wp))
    at = 15
    for _ in range(op[14]):
        h.cols_bytes = max(h.cols_bytes, 4 * op[at] * ch * hh * wp)
        at += 2 + 2 * op[at]


def prepare_phases(h, op, weights):
    """A convolution of s x s output phases (PHASE_CONV: a transposed one, or
    one of a nearest-upsampled input): phase (py, px) is output pixels
    (s i + py, s j + px), a stride-1 convolution of the input with the taps
    the host found for it (offsets into the padded input, their weights
    summed), on rows of the padded width, one dot; its real columns are
    copied into the phase's rows and columns of the result (made at load)."""
    _, out, o, p, x, ch, hh, ww, s, pt, pb, pl, pr, b, n_phases = op[:15]
    pitch, wp = hh + pt + pb + 1, pl + ww + pr
    n = hh * wp
    pad, zero, fill = _padded(h, ch, hh, ww, pt, pb, pl, pr, pitch)
    flat = pad.reshape((ch, pitch * wp))
    y = np.zeros((o * s * hh, s * ww), dtype=F32)
    phases, at = [], 15
    for k in range(n_phases):
        taps, w = op[at], op[at + 1]
        cols = np.frombuffer(h.cols, dtype=F32, count=taps * ch * n).reshape((taps * ch, n))
        copies = []
        for t in range(taps):
            off = op[at + 2 + 2 * t] * wp + op[at + 3 + 2 * t]
            copies.append((cols[t * ch : t * ch + ch, :], flat[:, off : off + n]))
        phases.append((copies, weights(w, o * taps * ch, (o, taps * ch)), cols, y[k // s :: s, k % s :: s]))
        at += 2 + 2 * taps
    result = y.reshape((o, s * hh * s * ww))
    h.fixed[out] = result
    return (_phase_conv, out, x, (ch * hh, ww), fill, phases, weights(b, o, (o, 1)), (o * hh, wp, ww), zero, result)


def _phase_conv(slots, c):
    x = slots[c[2]].reshape(c[3])
    for view in c[8]:
        view[:] = 0.0
    for view, a, b, step in c[4]:
        copy(view, x[a:b:step, :])
    rows, wp, ww = c[7]
    for copies, weight, cols, dst in c[5]:
        for d, src in copies:
            copy(d, src)
        t = np.dot(weight, cols)
        copy(dst, t.reshape((rows, wp))[:, 0:ww])
    y = c[9]
    if c[6] is not None:
        y += c[6]
    slots[c[1]] = y

"""UlabBackend: fp32 linear, convolution and the elementwise ops around them
run by ulab (numpy-like arrays in C, built into most CircuitPython builds).

The blob (written by host_tools/delegates/ulab.py) is int32 words, then the
float32 weights, 16-byte aligned, in the layouts ulab reads in place
(frombuffer: views into the program, never copied):

    header   magic 0x31424c55 ("ULB1"), n_inputs, n_outputs, n_slots, n_ops, n_words
    outputs  the slot of each output
    ops      per op: its word count, then (opcode, out slot, rows, cols, operands...)

Slots 0..n_inputs-1 are the call's input tensors (1-D views of their
storage, made once at load); each op writes a new slot, a 2-D array of rows
x cols (the torch layout of its result, row-major). After the ops each output
slot is copied into its planned output tensor.

Allocation per inference: ulab allocates every op's result array (its bytes
plus ~50 for the header), the views slicing makes, and nothing else; the
inputs, outputs, weights, padded inputs and im2col matrices are made at load.
A port without ulab cannot run it: is_available() is False and the load
fails naming the backend (mpy_et/delegate.py). CPython runs it with numpy
standing in (the host's load check, tests): same calls, same layouts.
"""

import struct

from mpy_et.errors import INVALID_PROGRAM, MpyEtError

try:
    from ulab import numpy as np
except ImportError:
    try:
        import numpy as np  # CPython
    except ImportError:
        np = None

F32 = None if np is None else getattr(np, "float32", None) or np.float

_MAGIC = 0x31424C55
LINEAR = 1  # out = x[rows, k] . w[k, cols] (+ b[cols])           operands: x, k, w, b
CONV = 2  # out[O, OH*OW] = conv2d (groups 1 or depthwise)       operands: x, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, depthwise, OH, OW, w, b
RELU = 3  # operands: x
CLAMP = 4  # operands: x, lo, hi (float32 bits)
ADD = 5  # operands: a, b
MUL = 6  # operands: a, b
TANH = 7  # operands: x


class _Handle:
    """A delegate's ops, views and scratch arrays."""

    def __init__(self, n_inputs, outputs, n_slots, ops):
        self.n_inputs = n_inputs
        self.outputs = outputs  # (slot, rows, cols) per output
        self.slots = [None] * n_slots
        self.ops = ops  # (function, ctx) per op; made by prepare()
        self.views = None  # output tensors as 2-D arrays (prepare)


class UlabBackend:
    NEEDS = "needs ulab (CircuitPython's numpy), which this port lacks"

    def is_available(self):
        return np is not None

    def init(self, processed, compile_specs):
        words = struct.unpack_from("<6i", processed, 0)
        if words[0] != _MAGIC:
            raise MpyEtError(INVALID_PROGRAM, "not a ulab blob (magic %08x)" % (words[0] & 0xFFFFFFFF))
        n_in, n_out, n_slots, n_ops, n_words = words[1:]
        if 4 * n_words > len(processed):
            raise MpyEtError(INVALID_PROGRAM, "ulab blob of %d bytes holds %d header words" % (len(processed), n_words))
        w = struct.unpack_from("<%di" % n_words, processed, 0)
        pos = 6
        outputs = w[pos : pos + n_out]
        pos += n_out
        ops = []
        for _ in range(n_ops):
            n = w[pos]
            ops.append(w[pos + 1 : pos + n])
            pos += n
        h = _Handle(n_in, outputs, n_slots, ops)
        h.blob = processed
        return h

    def prepare(self, h, args):
        """Views of the call's tensors and each op's weights and scratch (load time)."""
        if len(args) != h.n_inputs + len(h.outputs):
            raise MpyEtError(INVALID_PROGRAM, "ulab delegate takes %d inputs and %d outputs, the call passes %d values" % (h.n_inputs, len(h.outputs), len(args)))
        for i in range(h.n_inputs):
            h.slots[i] = _view(args[i])
        shapes = {}
        made = []
        for op in h.ops:
            shapes[op[1]] = (op[2], op[3])
            made.append(_PREPARE[op[0]](h, op))
        h.ops = made
        views = []
        for j in range(len(h.outputs)):
            s = h.outputs[j]
            t = args[h.n_inputs + j]
            if s not in shapes or shapes[s][0] * shapes[s][1] != t.numel:
                raise MpyEtError(INVALID_PROGRAM, "ulab delegate output %d (slot %d) does not match its %s tensor" % (j, s, list(t.sizes)))
            views.append((s, _view(t).reshape(shapes[s])))
        h.views = views
        h.blob = None

    def execute(self, h, args):
        slots = h.slots
        for op in h.ops:
            op[0](slots, op)
        for s, view in h.views:
            view[:] = slots[s]  # into the planned output: no allocation

    def destroy(self, h):
        h.slots = h.ops = h.views = None


def _view(t):
    """A tensor's storage as a 1-D float32 array (in place)."""
    if t.dtype != 6:
        raise MpyEtError(INVALID_PROGRAM, "ulab delegate: a %s tensor is not float32" % list(t.sizes))
    return np.frombuffer(t.buf, dtype=F32, count=t.numel, offset=t.offset)


def _weights(h, off, n, shape):
    """n float32 of the blob at byte off, shaped (in place; none when off < 0)."""
    if off < 0:
        return None
    if off + 4 * n > len(h.blob):
        raise MpyEtError(INVALID_PROGRAM, "ulab blob: weights at %d + %d bytes past its %d bytes" % (off, 4 * n, len(h.blob)))
    return np.frombuffer(h.blob, dtype=F32, count=n, offset=off).reshape(shape)


# -- linear ----------------------------------------------------------------


def _prep_linear(h, op):
    _, out, rows, cols, x, k, w, b = op
    return (_linear, out, x, (rows, k), _weights(h, w, k * cols, (k, cols)), _weights(h, b, cols, (cols,)))


def _linear(slots, c):
    y = np.dot(slots[c[2]].reshape(c[3]), c[4])
    if c[5] is not None:
        y = y + c[5]
    slots[c[1]] = y


# -- convolution -------------------------------------------------------------


def _prep_conv(h, op):
    _, out, o, p, x, ch, hh, ww, kh, kw, sh, sw, ph, pw, dh, dw, depthwise, oh, ow, w, b = op
    kk = kh * kw
    direct = kk == 1 and sh == 1 and sw == 1 and ph == 0 and pw == 0  # 1x1: the input is the im2col matrix
    hp, wp = hh + 2 * ph, ww + 2 * pw
    pad = np.zeros((ch * hp, wp), dtype=F32) if (ph or pw) else None
    cols = None if direct and not depthwise else np.zeros((kk * ch, oh * ow), dtype=F32)
    if depthwise:
        weight = [_weights(h, w + 4 * ch * k, ch, (ch, 1)) for k in range(kk)]  # [kk, C] on the host
    else:
        weight = _weights(h, w, o * kk * ch, (o, kk * ch))
    bias = _weights(h, b, o, (o, 1))
    geometry = (ch, hh, ww, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, hp)
    return (_conv, out, x, geometry, pad, cols, weight, bias, depthwise, direct)


def _conv(slots, c):
    ch, hh, ww, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, hp = c[3]
    x = slots[c[2]]
    pad, cols = c[4], c[5]
    if pad is not None:  # the input into the zero-padded buffer: one slice per row or per channel
        x = x.reshape((ch * hh, ww))
        if hh <= ch:
            for r in range(hh):
                pad[ph + r : ph + r + (ch - 1) * hp + 1 : hp, pw : pw + ww] = x[r : r + (ch - 1) * hh + 1 : hh, :]
        else:
            for k in range(ch):
                pad[k * hp + ph : k * hp + ph + hh, pw : pw + ww] = x[k * hh : k * hh + hh, :]
        x = pad
    elif c[9]:
        x = x.reshape((ch, hh * ww))
    else:
        x = x.reshape((ch * hh, ww))
    if not c[9]:  # im2col: row k * C + channel holds tap k = (ky, kx) of every output pixel
        span = (ow - 1) * sw + 1
        last = (ch - 1) * hp + 1
        for ky in range(kh):
            for kx in range(kw):
                k = (ky * kw + kx) * ch
                x0 = kx * dw
                for oy in range(oh):
                    r = oy * sh + ky * dh
                    cols[k : k + ch, oy * ow : oy * ow + ow] = x[r : r + last : hp, x0 : x0 + span : sw]
    else:
        cols = x
    weight, bias = c[6], c[7]
    if c[8]:  # depthwise: out[c] = sum over taps of w[k, c] * cols[k * C + c]
        y = cols[0:ch] * weight[0]
        for k in range(1, kh * kw):
            y = y + cols[k * ch : k * ch + ch] * weight[k]
    else:
        y = np.dot(weight, cols)
    if bias is not None:
        y = y + bias
    slots[c[1]] = y


# -- elementwise -------------------------------------------------------------


def _prep_unary(h, op):
    extra = ()
    if op[0] == CLAMP:
        extra = struct.unpack("<2f", struct.pack("<2i", op[5], op[6]))
    return (_UNARY[op[0]], op[1], op[4], (op[2], op[3])) + extra


def _relu(slots, c):
    slots[c[1]] = np.maximum(slots[c[2]].reshape(c[3]), 0.0)


def _clamp(slots, c):
    slots[c[1]] = np.clip(slots[c[2]].reshape(c[3]), c[4], c[5])


def _tanh(slots, c):
    slots[c[1]] = np.tanh(slots[c[2]].reshape(c[3]))


def _prep_binary(h, op):
    return (_add if op[0] == ADD else _mul, op[1], op[4], (op[2], op[3]), op[5])


def _add(slots, c):
    slots[c[1]] = slots[c[2]].reshape(c[3]) + slots[c[4]].reshape(c[3])


def _mul(slots, c):
    slots[c[1]] = slots[c[2]].reshape(c[3]) * slots[c[4]].reshape(c[3])


_UNARY = {RELU: _relu, CLAMP: _clamp, TANH: _tanh}
_PREPARE = {LINEAR: _prep_linear, CONV: _prep_conv, RELU: _prep_unary, CLAMP: _prep_unary, TANH: _prep_unary, ADD: _prep_binary, MUL: _prep_binary}

backend = UlabBackend()

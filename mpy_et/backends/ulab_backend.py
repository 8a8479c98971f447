"""UlabBackend: fp32 linear, convolution, attention and the elementwise and
data-movement ops around them run by ulab (numpy-like arrays in C, built
into most CircuitPython builds). Convolutions: ulab_conv.py; attention,
data movement and masks: ulab_transformer.py.

The blob (written by host_tools/delegates/ulab.py) is int32 words, then the
float32 weights, 16-byte aligned, in the layouts ulab reads in place
(frombuffer: views into the program, never copied):

    header   magic 0x31424c55 ("ULB1"), n_inputs, n_outputs, n_slots, n_ops, n_words
    outputs  the slot of each output
    ops      per op: its word count, then (opcode, out slot, rows, cols, operands...)

Slots 0..n_inputs-1 are the call's input tensors (1-D views of their
storage, made once at load); each op writes a new slot, an array of rows x
cols elements (the torch layout of its result, row-major; readers reshape
it: a convolution's may be a strided view, an elementwise result keeps its
input's shape). After the ops each output slot is copied into its planned
output tensor.

Allocation per inference: ulab allocates the result arrays of dot and of
the elementwise and reducing calls (their bytes plus ~50 for the header),
the views slicing makes, and ~350 bytes per copy (ulab_conv.copy); the
inputs, outputs, weights, padded inputs, im2col matrices, the results of
data movement, bmm and upsampling, and the views ops read are made at load.
A port without ulab cannot run it: is_available() is False and the load
fails naming the backend (mpy_et/backends/__init__.py). On CPython the host hands in
numpy instead (use(); the host's load check, tests): same calls, same layouts.
"""

import struct

from mpy_et.backends import ulab_conv
from mpy_et.backends import ulab_transformer as T
from mpy_et.errors import INVALID_PROGRAM, MpyEtError

try:
    from ulab import numpy as np
except ImportError:
    np = None  # unavailable, unless the host hands in numpy (use())

F32 = None if np is None else np.float


def use(module):
    """Run on `module` (numpy's API) instead of ulab: the host checks exported
    programs on CPython this way (host_tools/delegates/ulab.py)."""
    global np, F32
    np, F32 = module, module.float32
    ulab_conv.use(module)
    T.use(module)


_MAGIC = 0x31424C55
LINEAR = 1  # out = x[rows, k] . w[k, cols] (+ b[cols])           operands: x, k, w, b
CONV = 2  # out[O, OH*OW] = conv2d (groups 1 or depthwise)       operands: x, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, g, OH, OW, w, b, wide
RELU = 3  # operands: x
CLAMP = 4  # operands: x, lo, hi (float32 bits)
ADD = 5  # operands: a, b
MUL = 6  # operands: a, b
TANH = 7  # operands: x
MAX_POOL = 8  # out[rows, cols] = max of x[rows * kh, cols * kw] over each kh x kw tile  operands: x, kh, kw
MEAN = 9  # out[rows, 1] = mean of x[rows, n] along a row                   operands: x, n
UPSAMPLE = 10  # out[rows, cols] = x[rows / sh, cols / sw] (nearest)        operands: x, sh, sw
SIGMOID = 11  # operands: x
# out[O, s*H * s*W] = s x s output phases, each a stride-1 convolution of x (ulab_conv.prepare_phases)
# operands: x, C, H, W, s, pad top, bottom, left, right, b, n_phases, then per phase: taps, w, taps x (row, col)
PHASE_CONV = 24
SUB = 26  # operands: a, b
# out = x op w, or w op x, w the blob's constant [rows, cols]   operands: x, w, 2 * (ADD, MUL or SUB) + (1 when w is first)
BINARY_W = 27
# A convolution's g: 0 for depthwise (weights [kh*kw, C]: per tap, the tap's
# rows [C, OH*OW] times a column of weights), else the taps in one im2col
# matrix [g*C, OH*OW] (the taps in groups of g, one dot each: weights [O, g*C]
# per group, tap-major; g = kh*kw is plain im2col, smaller g less RAM)
DEPTHWISE = 0


class _Handle:
    """A delegate's ops, views and scratch arrays."""

    def __init__(self, n_inputs, outputs, n_slots, ops):
        self.n_inputs = n_inputs
        self.outputs = outputs  # the slot of each output
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
            n = w[pos] if pos < n_words else 0
            if n < 3 or pos + n > n_words or _words(w, pos + 1, n) != n - 1 or not n_in <= w[pos + 2] < n_slots:
                raise MpyEtError(INVALID_PROGRAM, "ulab blob: op record at word %d is malformed" % pos)
            ops.append(w[pos + 1 : pos + n])
            pos += n
        for s in outputs:
            if not n_in <= s < n_slots:
                raise MpyEtError(INVALID_PROGRAM, "ulab blob: output slot %d out of range" % s)
        h = _Handle(n_in, outputs, n_slots, ops)
        h.blob = processed
        return h

    def prepare(self, h, args):
        """Views of the call's tensors and each op's weights and scratch (load time)."""
        if len(args) != h.n_inputs + len(h.outputs):
            raise MpyEtError(
                INVALID_PROGRAM,
                "ulab delegate takes %d inputs and %d outputs, the call passes %d values" % (h.n_inputs, len(h.outputs), len(args)),
            )
        for i in range(h.n_inputs):
            h.slots[i] = _view(args[i])
        shapes = {}
        numel = {i: args[i].numel for i in range(h.n_inputs)}
        last = {}  # slot -> the last op reading it
        h.cols_bytes = h.pad_bytes = 0
        h.geometries = set()
        for i in range(len(h.ops)):
            op = h.ops[i]
            reads = _reads(op)
            for j, at in enumerate(_INPUTS.get(op[0], (4,))):
                s = op[at]
                if numel.get(s) != reads[j]:  # what the op reshapes its input to: checked once here
                    raise MpyEtError(INVALID_PROGRAM, "ulab blob: op %d (opcode %d) reads slot %d as %s elements" % (i, op[0], s, reads[j]))
                last[s] = i
            shapes[op[1]] = (op[2], op[3])
            numel[op[1]] = op[2] * op[3]
            if op[0] == CONV:
                ulab_conv.scratch(h, op)
            elif op[0] == PHASE_CONV:
                ulab_conv.scratch_phases(h, op)
        # the convolutions' im2col rows: one buffer for all (they run one after
        # the other) and the padded input (ulab_conv._padded)
        h.cols = bytearray(h.cols_bytes)
        h.pad = bytearray(h.pad_bytes)
        h.padded = {}  # geometry -> (padded input, border views, fill views): ulab_conv._padded
        h.fixed = {i: h.slots[i] for i in range(h.n_inputs)}  # slot -> its array when made at load
        made, frees = [], []
        for i in range(len(h.ops)):
            made.append(_PREPARE[h.ops[i][0]](h, h.ops[i]))
            frees.append(tuple(s for s in last if last[s] == i and s >= h.n_inputs and s not in h.outputs))
        h.ops, h.frees = made, frees
        h.pad = h.cols = h.fixed = h.geometries = h.padded = None
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
        slots, ops, frees = h.slots, h.ops, h.frees
        for i in range(len(ops)):
            op = ops[i]
            op[0](slots, op)
            for s in frees[i]:  # results after their last use: the heap can reuse them
                slots[s] = None
        for s, view in h.views:
            ulab_conv.copy(view, slots[s].reshape(view.shape))  # into the planned output

    def destroy(self, h):
        h.slots = h.ops = h.views = None


def _words(w, at, n):
    """Words of the record (opcode, out slot, ...) at w[at] (n - 1: what it says)."""
    if w[at] == T.MOVE:
        return 7 + 7 * w[at + 6] if n > 7 else -1
    if w[at] == PHASE_CONV:
        k, end = at + 14, at + n - 2
        for _ in range(w[at + 14] if n > 15 else -1):
            if k + 1 > end:
                return -1
            k += 2 + 2 * w[k + 1]
        return k - at + 1 if n > 15 else -1
    return _WORDS.get(w[at])


def _reads(op):
    """Elements an op reads from each of its input slots (_INPUTS)."""
    code, rows, cols = op[0], op[2], op[3]
    if code == LINEAR:
        return (rows * op[5],)
    if code in (CONV, PHASE_CONV):
        return (op[5] * op[6] * op[7],)
    if code == MAX_POOL:
        return (rows * op[5] * cols * op[6],)
    if code in (MEAN, T.ANY):
        return (rows * op[5],)
    if code == UPSAMPLE:
        return ((rows // op[5]) * (cols // op[6]),)
    if code in (T.MOVE, T.RANGE):
        return (op[5],)
    if code == T.BMM:
        return (op[6] * op[7] * op[8], op[6] * op[8] * cols)
    if code == T.WHERE:
        return (rows * op[7], rows * op[8], rows * op[9])
    return (rows * cols, rows * cols)


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
        y += c[5]  # in place: y is this op's own result
    slots[c[1]] = y


# -- convolution (mpy_et/backends/ulab_conv.py) ------------------------------


def _prep_conv(h, op):
    return ulab_conv.prepare(h, op, lambda off, n, shape: _weights(h, off, n, shape))


# -- elementwise -------------------------------------------------------------


def _prep_unary(h, op):
    extra = ()
    if op[0] == CLAMP:
        extra = struct.unpack("<2f", struct.pack("<2i", op[5], op[6]))
    return (_UNARY[op[0]], op[1], op[4], (op[2], op[3])) + extra


# elementwise results keep their input's shape (a convolution's is a view
# [O * OH, OW]: this call makes the contiguous copy); readers reshape


def _relu(slots, c):
    slots[c[1]] = np.maximum(slots[c[2]], 0.0)


def _clamp(slots, c):
    slots[c[1]] = np.clip(slots[c[2]], c[4], c[5])


def _tanh(slots, c):
    slots[c[1]] = np.tanh(slots[c[2]])


def _sigmoid(slots, c):
    t = slots[c[2]] * -1.0  # the one result array: the rest is in place
    np.exp(t, out=t)
    t += 1.0
    t **= -1.0
    slots[c[1]] = t


def _prep_max_pool(h, op):
    _, out, rows, cols, x, kh, kw = op
    return (_max_pool, out, x, (rows * kh, cols * kw), kh, kw)


def _max_pool(slots, c):
    x = slots[c[2]].reshape(c[3])
    kh, kw = c[4], c[5]
    y = x[0::kh, 0::kw]
    for i in range(kh):
        for j in range(kw):
            if i or j:
                y = np.maximum(y, x[i::kh, j::kw])
    slots[c[1]] = y


def _prep_mean(h, op):
    return (_mean, op[1], op[4], (op[2], op[5]))


def _mean(slots, c):
    slots[c[1]] = np.mean(slots[c[2]].reshape(c[3]), axis=1).reshape((c[3][0], 1))


def _prep_upsample(h, op):
    """The result is an array made at load, and the views of it each input
    pixel is copied to."""
    _, out, rows, cols, x, sh, sw = op
    y = np.zeros((rows, cols), dtype=F32)
    h.fixed[out] = y
    return (_upsample, out, x, (rows // sh, cols // sw), y, [y[i::sh, j::sw] for i in range(sh) for j in range(sw)])


def _upsample(slots, c):
    x = slots[c[2]].reshape(c[3])
    for view in c[5]:
        ulab_conv.copy(view, x)
    slots[c[1]] = c[4]


def _prep_binary(h, op):
    return ({ADD: _add, MUL: _mul, SUB: _sub}[op[0]], op[1], op[4], (op[2], op[3]), op[5])


def _prep_binary_w(h, op):
    _, out, rows, cols, x, w, kind = op
    f = {2 * ADD: _add_w, 2 * ADD + 1: _add_w, 2 * MUL: _mul_w, 2 * MUL + 1: _mul_w, 2 * SUB: _sub_w, 2 * SUB + 1: _rsub_w}.get(kind)
    if f is None:
        raise MpyEtError(INVALID_PROGRAM, "ulab blob: binary op kind %d" % kind)
    return (f, out, x, (rows, cols), _weights(h, w, rows * cols, (rows, cols)))


def _add_w(slots, c):
    slots[c[1]] = slots[c[2]].reshape(c[3]) + c[4]


def _mul_w(slots, c):
    slots[c[1]] = slots[c[2]].reshape(c[3]) * c[4]


def _sub_w(slots, c):
    slots[c[1]] = slots[c[2]].reshape(c[3]) - c[4]


def _rsub_w(slots, c):
    slots[c[1]] = c[4] - slots[c[2]].reshape(c[3])


def _sub(slots, c):
    slots[c[1]] = slots[c[2]].reshape(c[3]) - slots[c[4]].reshape(c[3])


def _add(slots, c):
    slots[c[1]] = slots[c[2]].reshape(c[3]) + slots[c[4]].reshape(c[3])


def _mul(slots, c):
    slots[c[1]] = slots[c[2]].reshape(c[3]) * slots[c[4]].reshape(c[3])


# words of each op's record (opcode, out slot, rows, cols, operands; MOVE's: _words)
_WORDS = {LINEAR: 8, CONV: 22, RELU: 5, CLAMP: 7, ADD: 6, MUL: 6, TANH: 5, MAX_POOL: 7, MEAN: 6, UPSAMPLE: 7, SIGMOID: 5}
_WORDS.update({T.ALIAS: 5, T.BMM: 9, T.SOFTMAX: 5, T.LAYER_NORM: 8, T.GELU: 6, T.MUL_SCALAR: 6, T.EQ_SCALAR: 6})
_WORDS.update({T.NOT: 5, T.ANY: 6, T.FULL: 5, T.WHERE: 10, T.RANGE: 7, SUB: 6, BINARY_W: 7})
# record positions of the slots an op reads (default: one, at 4)
_INPUTS = {ADD: (4, 5), MUL: (4, 5), SUB: (4, 5), T.BMM: (4, 5), T.WHERE: (4, 5, 6), T.FULL: ()}
_UNARY = {RELU: _relu, CLAMP: _clamp, TANH: _tanh, SIGMOID: _sigmoid}
_PREPARE = {
    LINEAR: _prep_linear,
    CONV: _prep_conv,
    PHASE_CONV: lambda h, op: ulab_conv.prepare_phases(h, op, lambda off, n, shape: _weights(h, off, n, shape)),
    RELU: _prep_unary,
    SIGMOID: _prep_unary,
    MAX_POOL: _prep_max_pool,
    MEAN: _prep_mean,
    UPSAMPLE: _prep_upsample,
    CLAMP: _prep_unary,
    TANH: _prep_unary,
    ADD: _prep_binary,
    MUL: _prep_binary,
    SUB: _prep_binary,
    BINARY_W: _prep_binary_w,
    T.MOVE: T.prep_move,
    T.ALIAS: T.prep_alias,
    T.RANGE: T.prep_range,
    T.BMM: T.prep_bmm,
    T.SOFTMAX: T.prep_softmax,
    T.LAYER_NORM: lambda h, op: T.prep_layer_norm(h, op, lambda off, n, shape: _weights(h, off, n, shape)),
    T.GELU: T.prep_gelu,
    T.MUL_SCALAR: T.prep_scalar,
    T.EQ_SCALAR: T.prep_scalar,
    T.NOT: T.prep_not,
    T.ANY: T.prep_any,
    T.FULL: T.prep_full,
    T.WHERE: T.prep_where,
}

backend = UlabBackend()

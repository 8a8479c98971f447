"""The ulab backend's ops of attention and transformer blocks: data movement
(permute, select, slice, expand: MOVE), batched matmul, softmax, layer norm,
gelu, scalar multiply, and the masks PyTorch's attention builds around its
softmax (eq, logical_not, any, full_like, where; a mask is a ulab bool array,
never a delegate input or output). Record operands: ulab_backend.py.

The host turns every data movement into blocks (host_tools/delegates/ulab.py,
_move_blocks): rows of the output [rows, cols] that are one 2-D strided view
of the input's storage seen as [n / W, W]; the device copies each block with
two in-place calls (ulab_conv.copy) into a result array made at load. A
clone, or an expand to the same sizes, passes its input's array on (ALIAS).
Allocation per call: each op's result (ulab's) except MOVE, BMM and FULL,
whose results are made at load, plus the views slicing makes.
"""

import struct

from mpy_et.backends.ulab_conv import copy

try:
    from ulab import numpy as np
except ImportError:
    np = None

F32 = None if np is None else np.float

# opcodes (ulab_backend.py has 1-11)
MOVE = 12  # operands: x, n_in, n_blocks, then per block: out row, rows, W, row start, row step, col start, col step (steps: 0 broadcasts)
ALIAS = 13  # operands: x
BMM = 14  # out[batches * m, cols] = a[batches, m, k] . b[batches, k, cols]   operands: a, b, batches, m, k
SOFTMAX = 15  # along a row                                                  operands: x
LAYER_NORM = 16  # over a row: operands x, w, b (blob offsets, -1: none), eps (float32 bits)
GELU = 17  # operands: x, 1 for the tanh approximation
MUL_SCALAR = 18  # operands: x, s (float32 bits)
EQ_SCALAR = 19  # bool result: operands x, s (float32 bits)
NOT = 20  # bool: operands x
ANY = 21  # bool out[rows, 1] along rows of x[rows, n]                      operands: x, n
FULL = 22  # operands: value (float32 bits); reads no slot
WHERE = 23  # operands: cond, a, b, then the cols of each (cols, or 1: broadcast along the row)
RANGE = 25  # out = x's elements start .. start + rows * cols (a view)    operands: x, n_in, start
_INV_SQRT2 = 0.7071067811865476
_TANH_K = 0.7978845608028654  # sqrt(2 / pi)
# erfc(z) ~ t * exp(-z*z) * poly(t), t = 1 / (1 + p z): Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7)
_P = 0.3275911
_A = (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)


def use(module):
    """Run on `module` (numpy's API) instead of ulab (ulab_backend.use())."""
    global np, F32
    np, F32 = module, module.float32


def f32(bits):
    """The float32 an int32 record word holds."""
    return struct.unpack("<f", struct.pack("<i", bits))[0]


def prep_move(h, op):
    """A result array made at load; the input's views too when its array is
    one that lives as long (h.fixed: the call's inputs, results made at load)."""
    _, out, rows, cols, x, n_in, n_blocks = op[:7]
    y = np.zeros((rows, cols), dtype=F32)
    src = h.fixed.get(x)
    blocks = []
    for i in range(n_blocks):
        r0, n, w, ra, rstep, ca, cstep = op[7 + 7 * i : 14 + 7 * i]
        # a step of 0 broadcasts one row or column (copy()'s += does)
        rsl = slice(ra, ra + (n - 1) * rstep + 1, rstep) if rstep else slice(ra, ra + 1)
        csl = slice(ca, ca + (cols - 1) * cstep + 1, cstep) if cstep else slice(ca, ca + 1)
        dst = y[r0 : r0 + n, :]
        blocks.append((dst, src.reshape((n_in // w, w))[rsl, csl]) if src is not None else (dst, (n_in // w, w), rsl, csl))
    h.fixed[out] = y
    return (_move if src is None else _move_fixed, out, x, y, blocks)


def _move(slots, c):
    x = slots[c[2]]
    for dst, shape, rsl, csl in c[4]:
        copy(dst, x.reshape(shape)[rsl, csl])
    slots[c[1]] = c[3]


def _move_fixed(slots, c):
    for dst, src in c[4]:
        copy(dst, src)
    slots[c[1]] = c[3]


def prep_alias(h, op):
    if op[4] in h.fixed:
        h.fixed[op[1]] = h.fixed[op[4]]
    return (_alias, op[1], op[4])


def _alias(slots, c):
    slots[c[1]] = slots[c[2]]


def prep_range(h, op):
    _, out, rows, cols, x, n_in, start = op
    src = h.fixed.get(x)
    if src is not None:
        h.fixed[out] = view = src.reshape((n_in,))[start : start + rows * cols]
        return (_made, out, view)
    return (_range, out, x, (n_in,), start, start + rows * cols)


def _range(slots, c):
    slots[c[1]] = slots[c[2]].reshape(c[3])[c[4] : c[5]]  # a view: nothing copied


def prep_bmm(h, op):
    _, out, rows, cols, a, b, batches, m, k = op
    y = np.zeros((rows, cols), dtype=F32)
    h.fixed[out] = y
    parts = [(i * m, i * m + m, i * k, i * k + k, y[i * m : i * m + m, :]) for i in range(batches)]
    fa, fb = h.fixed.get(a), h.fixed.get(b)
    if fa is not None and fb is not None:  # both made at load: their views too
        fa, fb = fa.reshape((batches * m, k)), fb.reshape((batches * k, cols))
        return (_bmm_fixed, out, y, [(fa[a0:a1, :], fb[b0:b1, :], dst) for a0, a1, b0, b1, dst in parts])
    return (_bmm, out, a, b, y, parts, (batches * m, k), (batches * k, cols))


def _bmm(slots, c):
    a = slots[c[2]].reshape(c[6])
    b = slots[c[3]].reshape(c[7])
    for a0, a1, b0, b1, dst in c[5]:
        copy(dst, np.dot(a[a0:a1, :], b[b0:b1, :]))
    slots[c[1]] = c[4]


def _bmm_fixed(slots, c):
    for a, b, dst in c[3]:
        copy(dst, np.dot(a, b))
    slots[c[1]] = c[2]


def prep_softmax(h, op):
    # ulab's max along an axis of a single row is a float, not an array
    return (_softmax if op[2] > 1 else _softmax_row, op[1], op[4], (op[2], op[3]), (op[2], 1))


def _softmax_row(slots, c):
    t = slots[c[2]].reshape(c[3]) - np.max(slots[c[2]])
    np.exp(t, out=t)
    t /= np.sum(t)
    slots[c[1]] = t


def _softmax(slots, c):
    x = slots[c[2]].reshape(c[3])
    t = x - np.max(x, axis=1).reshape(c[4])
    np.exp(t, out=t)
    t /= np.sum(t, axis=1).reshape(c[4])
    slots[c[1]] = t


def prep_layer_norm(h, op, weights):
    _, out, rows, cols, x, w, b, eps = op
    return (_layer_norm, out, x, (rows, cols), (rows, 1), weights(w, cols, (cols,)), weights(b, cols, (cols,)), f32(eps))


def _layer_norm(slots, c):
    x = slots[c[2]].reshape(c[3])
    d = x - np.mean(x, axis=1).reshape(c[4])
    s = d * d
    r = np.mean(s, axis=1)
    r += c[7]
    np.sqrt(r, out=r)
    d /= r.reshape(c[4])
    if c[5] is not None:
        d *= c[5]
    if c[6] is not None:
        d += c[6]
    slots[c[1]] = d


def prep_gelu(h, op):
    return (_gelu_tanh if op[5] else _gelu, op[1], op[4])


def _gelu(slots, c):
    """x * Phi(x); Phi(x) = 1 - erfc(x / sqrt 2) / 2 for x >= 0, erfc(-x / sqrt 2) / 2 below."""
    x = slots[c[2]]
    z = abs(x)
    z *= _INV_SQRT2
    t = z * _P
    t += 1.0
    t **= -1.0
    p = t * _A[0]
    for a in _A[1:]:
        p += a
        p *= t
    z *= z
    z *= -1.0
    np.exp(z, out=z)
    p *= z
    p *= 0.5  # erfc(|x| / sqrt 2) / 2
    y = np.where(x >= 0.0, 1.0 - p, p)
    y *= x
    slots[c[1]] = y


def _gelu_tanh(slots, c):
    x = slots[c[2]]
    t = x * x
    t *= 0.044715
    t += 1.0
    t *= x
    t *= _TANH_K
    np.tanh(t, out=t)
    t += 1.0
    t *= x
    t *= 0.5
    slots[c[1]] = t


def prep_scalar(h, op):
    return (_mul_scalar if op[0] == MUL_SCALAR else _eq_scalar, op[1], op[4], f32(op[5]))


def _mul_scalar(slots, c):
    slots[c[1]] = slots[c[2]] * c[3]


def _eq_scalar(slots, c):
    slots[c[1]] = slots[c[2]] == c[3]


def prep_not(h, op):
    return (_not, op[1], op[4])


def _not(slots, c):
    slots[c[1]] = slots[c[2]] == 0


def prep_any(h, op):
    return (_any, op[1], op[4], (op[2], op[5]), (op[2], 1))


def _any(slots, c):
    slots[c[1]] = np.any(slots[c[2]].reshape(c[3]), axis=1).reshape(c[4])


def prep_full(h, op):
    h.fixed[op[1]] = y = np.full((op[2], op[3]), f32(op[4]), dtype=F32)
    return (_made, op[1], y)


def _made(slots, c):
    slots[c[1]] = c[2]  # a result made at load


def prep_where(h, op):
    _, out, rows, cols, cond, a, b, cc, ac, bc = op
    return (_where, out, cond, a, b, (rows, cc), (rows, ac), (rows, bc))


def _where(slots, c):
    slots[c[1]] = np.where(slots[c[2]].reshape(c[5]), slots[c[3]].reshape(c[6]), slots[c[4]].reshape(c[7]))

"""aten::native_layer_norm.out: normalise over the trailing
normalized_shape dims: out0 = (x - mean) * rstd * weight + bias, with
rstd = 1 / sqrt(biased var + eps); out1 = mean and out2 = rstd, of shape
x.shape[:axis] + [1] * len(normalized_shape) (either may be empty).
Float only.

Per row: one pass for the mean, one for the variance (two passes keep the
variance exact where a single sum of squares cancels), one to write.
Sums are Python floats (double on most ports). Allocation in the step:
boxed floats only.

float32 on ports with 64-bit native words (emitters.WIDE): the passes over
the elements run in f32_layer_norm_viper (exact fixed-point sums, no float
object per element); per row only mean and rstd are Python floats. A row
holding inf/NaN (or longer than 8,192) runs in bytecode. With a
single-precision FPU (emitters.FPU: Cortex-M4F / M7) the whole step is
f32_layer_norm_fpu's assembler function (float32 sums, as torch's kernel);
on the other Thumb-2 boards (Cortex-M3) f32_rows_thumb.stats: exact integer
sums in assembler, the elements in f32_arith_thumb's soft-float.
"""

import math

from mpy_et import dtypes
from mpy_et.port import const
from mpy_et.tensor import addressable
from portable_kernels.util import checks, loops
from portable_kernels.util.emitters import FPU, THUMB2, WIDE

_FLOATS = (dtypes.FLOAT, dtypes.DOUBLE)
_ADD = const(0)  # f32_arith_thumb's op codes
_SUB = const(1)
_MUL = const(2)


def native_layer_norm_out(x, normalized_shape, weight, bias, eps, out0, out1, out2):
    what = "native_layer_norm"
    checks.is_tensor(x, what + " input")
    checks.dtype_in(x, _FLOATS, what + " input")
    if not isinstance(normalized_shape, (list, tuple)) or not normalized_shape:
        checks.fail("%s: normalized_shape must be a non-empty list of ints, got %r" % (what, normalized_shape))
    norm = checks.int_list(normalized_shape, len(normalized_shape), what + " normalized_shape", 0)
    k = len(norm)
    if k > len(x.sizes) or tuple(x.sizes[len(x.sizes) - k :]) != norm:
        checks.fail("%s: normalized_shape %s does not match the trailing dims of input %s" % (what, list(norm), checks.shape_str(x)))
    m = loops.numel(norm)
    for t, name in ((weight, "weight"), (bias, "bias")):
        if t is not None:
            checks.is_tensor(t, "%s %s" % (what, name))
            checks.same_dtype(x, t)
            if tuple(t.sizes) != norm:
                checks.fail("%s: %s must have shape %s, got %s" % (what, name, list(norm), checks.shape_str(t)))
    checks.number(eps, what + " eps")
    checks.is_tensor(out0, what + " out0")
    checks.same_dtype(x, out0)
    checks.out_shape(out0, x.sizes, what + " out0")
    stat_shape = tuple(x.sizes[: len(x.sizes) - k]) + (1,) * k
    stats = []
    saved = []
    for t, name in ((out1, "out1"), (out2, "out2")):
        checks.is_tensor(t, "%s %s" % (what, name))
        if t.numel == 0 and tuple(t.sizes) != stat_shape:
            stats.append(None)
            saved.append(None)
            continue
        checks.same_dtype(x, t)
        checks.out_shape(t, stat_shape, "%s %s" % (what, name))
        stats.append(t.data)
        saved.append(t)
    rows = loops.numel(x.sizes[: len(x.sizes) - k])
    if rows == 0:
        return None
    if m == 0:
        checks.not_supported("%s: normalizing over zero elements (input %s)" % (what, checks.shape_str(x)))
    w = weight.data if weight is not None else None
    b = bias.data if bias is not None else None
    if WIDE and x.dtype == dtypes.FLOAT and m >= 8 and addressable(x, weight, bias, out0):
        from portable_kernels.native import f32_layer_norm_viper as lnv  # imported when first needed (load time)

        flags = (1 if w is not None else 0) | (2 if b is not None else 0)
        fn = (lnv.stats, lnv.normalize, x.data if w is None else w, x.data if b is None else b, flags, [0] * 6)
        return _viper, (x.data, out0.data, rows, m, float(eps), w, b, stats[0], stats[1]) + fn
    if FPU and x.dtype == dtypes.FLOAT and addressable(x, weight, bias, out0, saved[0], saved[1]):
        from portable_kernels.native import f32_layer_norm_fpu  # imported when first needed (load time)

        return f32_layer_norm_fpu.layer_norm(x, out0, rows, m, weight, bias, float(eps), saved[0], saved[1])
    if THUMB2 and x.dtype == dtypes.FLOAT and m >= 8 and addressable(x, weight, bias, out0):
        from portable_kernels.native import f32_arith_thumb, f32_rows_thumb  # noqa: F401 (imported at load: _thumb's)

        return _thumb, (x.data, out0.data, rows, m, float(eps), w, b, stats[0], stats[1], f32_rows_thumb)  # 10 items: 48 bytes
    return _layer_norm, (x.data, out0.data, rows, m, float(eps), w, b, stats[0], stats[1])


def _viper(ctx):
    x, o, rows, m, eps, w, b, save_mean, save_rstd, stats, normalize, wv, bv, flags, res = ctx
    ldexp = math.ldexp
    i = 0
    for r in range(rows):
        if stats(x, i, m, wv, bv, flags, res):
            _row(x, o, i, m, eps, w, b, save_mean, save_rstd, r)
        else:
            emax, s, sh, sa, sb, sc = res
            u = emax - 174  # x == X * 2**u; D = m * X - S == m * (x - mean) * 2**-u
            mean = ldexp(s, u) / m
            var = ldexp(sa * 1099511627776.0 + sb * 2097152.0 + sc, 2 * (sh + u)) / (m * m * m)
            rstd = 1.0 / math.sqrt(var + eps)
            f, e = math.frexp(ldexp(rstd, u) / m)
            normalize(x, o, i, m, wv, bv, flags, emax, s, int(f * 274877906944.0), e - 38)
            if save_mean is not None:
                save_mean[r] = mean
            if save_rstd is not None:
                save_rstd[r] = rstd
        i += m


def _thumb(ctx):
    """Cortex-M3 rows: f32_rows_thumb.stats' exact integer sums, the elements
    through f32_arith_thumb's soft-float ((x - mean) * rstd, * w, + b): its
    assembler called directly with its control words (op, n, byte offsets of
    a, b, o, byte strides of a, b), no bytecode call or frame per pass."""
    from portable_kernels.native import f32_arith_thumb as fat  # imported at load

    x, o, rows, m, eps, w, b, save_mean, save_rstd, frt = ctx
    ctl = frt.CTL
    ms = frt.PAIR
    row_stats = frt.stats
    run = fat._binary
    c = fat._CTL
    i = 0
    for r in range(rows):
        ctl[0] = 4 * i
        ctl[1] = m
        if row_stats(x, ctl):
            _row(x, o, i, m, eps, w, b, save_mean, save_rstd, r)
        else:
            s = (ctl[4] << 32) | (ctl[3] & 0xFFFFFFFF)
            q = (ctl[6] << 32) | (ctl[5] & 0xFFFFFFFF)
            u = ctl[2] - 150  # x == X * 2**u
            mean = math.ldexp(s, u) / m
            rstd = 1.0 / math.sqrt(math.ldexp(m * q - s * s, 2 * u) / (m * m) + eps)
            ms[0] = mean
            ms[1] = rstd
            c[0] = _SUB
            c[1] = m
            c[2] = c[4] = 4 * i
            c[3] = c[6] = 0
            c[5] = 4
            # the float32 soft-float passes stop at an inf / NaN: then the bytecode row
            if run(x, ms, o, c):
                _row(x, o, i, m, eps, w, b, save_mean, save_rstd, r)
            else:
                c[0] = _MUL
                c[3] = 4  # rstd
                left = run(o, ms, o, c)
                c[3] = 0
                c[6] = 4
                if not left and w is not None:
                    left = run(o, w, o, c)
                c[0] = _ADD
                if not left and b is not None:
                    left = run(o, b, o, c)
                if left:
                    _row(x, o, i, m, eps, w, b, save_mean, save_rstd, r)
            if save_mean is not None:
                save_mean[r] = mean
            if save_rstd is not None:
                save_rstd[r] = rstd
        i += m


def _layer_norm(ctx):
    x, o, rows, m, eps, w, b, save_mean, save_rstd = ctx
    i = 0
    for r in range(rows):
        _row(x, o, i, m, eps, w, b, save_mean, save_rstd, r)
        i += m


def _row(x, o, i, m, eps, w, b, save_mean, save_rstd, r):
    sqrt = math.sqrt
    end = i + m
    s = 0.0
    for q in range(i, end):
        s += x[q]
    mean = s / m
    s = 0.0
    for q in range(i, end):
        d = x[q] - mean
        s += d * d
    rstd = 1.0 / sqrt(s / m + eps)
    if w is None:
        if b is None:
            for q in range(i, end):
                o[q] = (x[q] - mean) * rstd
        else:
            j = 0
            for q in range(i, end):
                o[q] = (x[q] - mean) * rstd + b[j]
                j += 1
    elif b is None:
        j = 0
        for q in range(i, end):
            o[q] = (x[q] - mean) * rstd * w[j]
            j += 1
    else:
        j = 0
        for q in range(i, end):
            o[q] = (x[q] - mean) * rstd * w[j] + b[j]
            j += 1
    if save_mean is not None:
        save_mean[r] = mean
    if save_rstd is not None:
        save_rstd[r] = rstd

"""Cases for the int8 kernels of the mpy_et_quant namespace.

Expected outputs come from the host integer reference (host_tools/quantize/ref.py,
registered as torch.ops.mpy_et_quant.*.out by host_tools/quantize/ops.py); every
case must match it exactly (atol 0) and runs its step under heap_lock. On
ports with a native emitter (unix, the emulated board) the conv/linear cases
take the viper path, elsewhere the pure-Python reference.
"""

import torch

import host_tools.quantize.ops  # noqa: F401 (registers torch.ops.mpy_et_quant)
from host_tools.quantize import pack as quant_pack
from host_tools.quantize import ref as quant_ref
from mpy_et.errors import INVALID_ARGUMENT, INVALID_TYPE
from tests.kernel_cases import Case, Out

I8, I32 = torch.int8, torch.int32


def q(*shape, seed, lo=-128, hi=127):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(lo, hi + 1, shape, generator=g, dtype=torch.int64).to(I8)


def requant(n, seed, lo_exp=-12, hi_exp=1):
    """Per-channel multipliers spanning both device evaluations (shift <= 21 and >= 22)."""
    g = torch.Generator().manual_seed(seed)
    reals = 2.0 ** (lo_exp + (hi_exp - lo_exp) * torch.rand(n, generator=g, dtype=torch.float64))
    return quant_ref.requant_table(reals)


def bias(n, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(-3000, 3000, (n,), generator=g).to(I32)


def _c(name, op, args):
    return Case(name, "mpy_et_quant::%s.out" % op, args, atol=0, rtol=0, noalloc=True)


def _packed(name, args):
    """A conv2d / conv1d / linear case as a .pte holds it: its _packed form (host_tools/quantize/pack.py)."""
    return _c(name, quant_pack.PACKED[args[0]], quant_pack.packed_args(args[0], args[1][:-1]) + args[1][-1:])


def conv_cases():
    # (name, x, weight, stride, padding, dilation, groups, x_zp, out_zp, lo, hi)
    configs = [
        ("3x3 pad 1", (1, 3, 6, 5), (4, 3, 3, 3), [1, 1], [1, 1], [1, 1], 1, -3, 5, -128, 127),
        ("depthwise 3x3 stride 2 pad 1 relu", (1, 4, 7, 6), (4, 1, 3, 3), [2, 2], [1, 1], [1, 1], 4, 10, -20, -20, 127),
        ("pointwise 1x1 batch 2", (2, 6, 3, 4), (5, 6, 1, 1), [1, 1], [0, 0], [1, 1], 1, -128, 0, -128, 127),
        ("3x2 dilation 2 groups 2 stride 2x1", (1, 4, 7, 7), (6, 2, 3, 2), [2, 1], [2, 1], [2, 2], 2, 7, -1, -1, 60),
        ("5x5 (25 taps, unrolled dot + tail)", (1, 1, 6, 6), (3, 1, 5, 5), [1, 1], [2, 2], [1, 1], 1, 0, 3, -128, 127),
        # fast-path edges: depthwise with batch/dilation/wide padding (border and inner windows),
        # channel multiplier 2 (not the depthwise step), odd channel counts and patches of 5 / 18 bytes
        ("depthwise 5x5 dilation 2 pad 4 batch 2", (2, 3, 9, 8), (3, 1, 5, 5), [1, 1], [4, 4], [2, 2], 3, -7, 4, -128, 127),
        ("depthwise multiplier 2", (1, 3, 6, 6), (6, 1, 3, 3), [1, 1], [1, 1], [1, 1], 3, 20, -3, -128, 127),
        ("1x1 stride 2, 7 channels of 5", (1, 5, 5, 7), (7, 5, 1, 1), [2, 2], [0, 0], [1, 1], 1, -100, 9, -128, 127),
        ("2x3 no padding, 3 channels of 18", (1, 3, 5, 9), (3, 3, 2, 3), [1, 2], [0, 0], [1, 1], 1, 127, -128, -128, 127),
    ]
    cases = []
    for i, (name, xs, ws, s, p, d, g, zx, zo, lo, hi) in enumerate(configs):
        w = q(*ws, seed=100 + i, lo=-127)
        args = [q(*xs, seed=200 + i), w, bias(ws[0], 300 + i), requant(ws[0], 400 + i), s, p, d, g, zx, zo, lo, hi]
        out = host_tools.quantize.ops.output_shape("conv2d", args)
        cases.append(_packed("q conv2d " + name, ("conv2d", args + [Out(out, I8)])))
    w = q(4, 3, 3, seed=500, lo=-127)
    args = [q(2, 3, 9, seed=501), w, bias(4, 502), requant(4, 503), [2], [1], [1], 1, -5, 2, -128, 127]
    cases.append(_packed("q conv1d k3 stride 2 pad 1", ("conv1d", args + [Out((2, 4, 5), I8)])))
    w = q(4, 1, 5, seed=504, lo=-127)
    args = [q(1, 4, 20, seed=505), w, bias(4, 506), requant(4, 507), [1], [2], [1], 4, 3, -4, -128, 127]
    cases.append(_packed("q conv1d depthwise k5 pad 2", ("conv1d", args + [Out((1, 4, 20), I8)])))
    # 3x3 depthwise whose every channel requantizes in one multiply (reals 2**-14 .. 2**-4): the
    # Thumb-2 assembler step (native/q_dw_step_thumb.py) on the boards; pixel pairs, an odd row end
    # (stride 1), single pixels (stride 2), lo / hi both clamping
    for name, xs, s, p, zx, zo, lo, hi in (
        ("stride 1 pad 1 batch 2, 5 wide", (2, 5, 6, 5), [1, 1], [1, 1], -5, 7, -60, 100),
        ("stride 2 pad 1 x 0, relu", (1, 3, 9, 8), [2, 2], [1, 0], 12, -30, -30, 127),
    ):
        w = q(xs[1], 1, 3, 3, seed=510 + xs[3], lo=-127)
        args = [q(*xs, seed=511 + xs[3]), w, bias(xs[1], 512), requant(xs[1], 513, -14, -4), s, p, [1, 1], xs[1], zx, zo, lo, hi]
        out = host_tools.quantize.ops.output_shape("conv2d", args)
        cases.append(_packed("q conv2d depthwise 3x3 " + name, ("conv2d", args + [Out(out, I8)])))
    x, w, b, rq = q(1, 2, 5, 5, seed=1), q(3, 2, 3, 3, seed=2, lo=-127), bias(3, 3), requant(3, 4)
    pw, ch = quant_pack.pack_weight(w), quant_pack.channel_table(w, b, rq, 0)
    geo = [[3, 3], [1, 1], [0, 0], [1, 1], 1, 0, 0, -128, 127, Out((1, 3, 3, 3), I8)]
    cases += [
        Case("q conv2d error float input", "mpy_et_quant::conv2d_packed.out", [x.float(), pw, ch] + geo, error=(INVALID_TYPE, "input")),
        Case(
            "q conv2d error channels shape",
            "mpy_et_quant::conv2d_packed.out",
            [x, pw, ch[:2]] + geo,
            error=(INVALID_ARGUMENT, "channels must be int32[3, 8]"),
        ),
        Case(
            "q conv2d error int8 (unpacked) weight",
            "mpy_et_quant::conv2d_packed.out",
            [x, w, ch] + geo,
            error=(INVALID_TYPE, "weight"),
        ),
        Case(
            "q conv2d error packed row length",
            "mpy_et_quant::conv2d_packed.out",
            [x, pw[:, :16], ch] + geo,
            error=(INVALID_ARGUMENT, "packed weight must be uint8[3, 20]"),
        ),
        Case(
            "q conv2d error folded bias out of range",
            "mpy_et_quant::conv2d_packed.out",
            [x, pw, ch * torch.tensor([[-1, 1, 1, 1, 1, 1, 1, 1]], dtype=I32)] + geo,
            error=(INVALID_ARGUMENT, "folded bias"),
        ),
        Case(
            "q conv2d error Arm columns disagree",
            "mpy_et_quant::conv2d_packed.out",
            [x, pw, ch + torch.tensor([[0, 0, 0, 0, 1, 0, 0, 0]], dtype=I32)] + geo,
            error=(INVALID_ARGUMENT, "Arm columns disagree"),
        ),
        Case(
            "q conv1d error 4-D input",
            "mpy_et_quant::conv1d_packed.out",
            [x, pw, ch, [3], [1], [0], [1], 1, 0, 0, -128, 127, Out((1, 3, 3, 3), I8)],
            error=(INVALID_ARGUMENT, "(N, C, L)"),
        ),
    ]
    return cases


def linear_cases():
    cases = []
    # K a multiple of 4 takes the Arm assembler step (native/q_linear_thumb.py): odd and even
    # channel counts, a recurrent cell's 32 x 96, rows of 4, a clamped output
    shapes = (
        ((3, 20), 7, -4, 9, -128, 127),
        ((2, 2, 8), 5, 127, -128, -128, 127),
        ((1, 13), 3, 0, 0, -128, 127),
        ((1, 32), 96, 5, -3, -128, 127),
        ((5, 4), 2, -128, 10, 0, 100),
    )
    for i, (xs, o, zx, zo, lo, hi) in enumerate(shapes):
        k = xs[-1]
        args = [q(*xs, seed=600 + i), q(o, k, seed=610 + i, lo=-127), bias(o, 620 + i), requant(o, 630 + i), zx, zo, lo, hi]
        cases.append(_packed("q linear %s x %d" % (list(xs), o), ("linear", args + [Out(xs[:-1] + (o,), I8)])))
    w = q(7, 19, seed=2)
    args = [
        q(3, 24, seed=1),
        quant_pack.pack_weight(w),
        quant_pack.channel_table(w, bias(7, 3), requant(7, 4), 0),
        0,
        0,
        -128,
        127,
        Out((3, 7), I8),
    ]
    cases.append(
        Case(
            "q linear error shapes", "mpy_et_quant::linear_packed.out", args, error=(INVALID_ARGUMENT, "packed weight must be uint8[7, 24]")
        )
    )
    return cases


def elementwise_cases():
    a, b = q(2, 3, 5, seed=700), q(2, 3, 5, seed=701)
    m, s, lim = quant_ref.requant_params(0.37 / 2**14)
    m2, s2, lim2 = quant_ref.requant_params(0.0031)
    cases = [
        _c("q add", "add", [a, b, 3, 16384, -7, 9000, m, s, lim, 4, -128, 127, Out((2, 3, 5), I8)]),
        _c("q add relu", "add", [a, b, -128, 12000, 0, 16384, m, s, lim, -10, -10, 127, Out((2, 3, 5), I8)]),
        # sub: an add with b's multiplier negated (recurrent cells' h - n)
        _c("q sub", "add", [a, b, 3, 16384, -7, -9000, m, s, lim, 4, -128, 127, Out((2, 3, 5), I8)]),
        # a shift below 22 (one multiply), the accumulator clamped at its limit both ways
        _c("q add direct shift", "add", [a, b, 3, 3, -7, -2] + list(quant_ref.requant_params(0.37)) + [4, -128, 127, Out((2, 3, 5), I8)]),
        # the accumulator past its limit, where the output saturates anyway (Thumb-2: no clamp, native/q_add_thumb2.py)
        _c(
            "q add limit saturates",
            "add",
            [a, b, 3, 16384, -7, 9000] + list(quant_ref.requant_params(0.37 / 2**12)) + [4, -20, 127, Out((2, 3, 5), I8)],
        ),
        _c("q sub both negative", "add", [a, b, 0, -16384, 100, -16384, m, s, lim, 0, -100, 100, Out((2, 3, 5), I8)]),
        _c("q mul", "mul", [a, b, 5, -2, m2, s2, lim2, 1, -128, 127, Out((2, 3, 5), I8)]),
        # the product past its limit, where the output saturates anyway (Thumb-2: no clamp, native/q_mul_thumb2.py)
        _c("q mul limit saturates", "mul", [a, b, 5, -2] + list(quant_ref.requant_params(0.05)) + [1, -30, 127, Out((2, 3, 5), I8)]),
        # a shift below 22 (one multiply), the product clamped at its limit both ways, a narrow output
        _c("q mul direct shift", "mul", [a, b, -3, 7] + list(quant_ref.requant_params(0.37)) + [-2, -60, 90, Out((2, 3, 5), I8)]),
        _c("q clamp", "clamp", [a, -5, 40, Out((2, 3, 5), I8)]),
        Case(
            "q add error shapes",
            "mpy_et_quant::add.out",
            [a, b[:1], 0, 1, 0, 1, m, s, lim, 0, -128, 127, Out((2, 3, 5), I8)],
            error=(INVALID_ARGUMENT, "shapes differ"),
        ),
        Case(
            "q add error multiplier",
            "mpy_et_quant::add.out",
            [a, b, 0, 1, 0, -16385, m, s, lim, 0, -128, 127, Out((2, 3, 5), I8)],
            error=(INVALID_ARGUMENT, "-2**14..2**14"),
        ),
        Case(
            "q mul error shift",
            "mpy_et_quant::mul.out",
            [a, b, 0, 0, 1, 50, 1, 0, -128, 127, Out((2, 3, 5), I8)],
            error=(INVALID_ARGUMENT, "32-bit-safe"),
        ),
        Case(
            "q clamp error min > max", "mpy_et_quant::clamp.out", [a, 5, 4, Out((2, 3, 5), I8)], error=(INVALID_ARGUMENT, "min 5 > max 4")
        ),
    ]
    return cases


def pool_cases():
    x = q(1, 3, 7, 6, seed=800)
    m, s, lim = quant_ref.requant_params(0.9 / 4)
    mg, sg, limg = quant_ref.requant_params(1.3 / 42)
    xw = q(2, 4, 11, 8, seed=801)
    xo = q(2, 3, 5, 9, seed=802)
    m16, s16, lim16 = quant_ref.requant_params(1.0 / 16)
    m25, s25, lim25 = quant_ref.requant_params(1.0 / 25)
    return [
        _c("q max_pool2d 2x2", "max_pool2d", [x, [2, 2], [2, 2], [0, 0], [1, 1], Out((1, 3, 3, 3), I8)]),
        _c("q max_pool2d 3x3 stride 2 pad 1 dilation 1x2", "max_pool2d", [x, [3, 3], [2, 2], [1, 1], [1, 2], Out((1, 3, 4, 2), I8)]),
        # unpadded windows (an assembler step on Arm: native/q_bytes_thumb.py): max_pool1d's k=2 on
        # an odd row (its last byte unused), 2x2 over rows with a leftover row, taps (stride 1, dilation)
        _c("q max_pool2d 1x2 odd row", "max_pool2d", [xo, [1, 2], [1, 2], [0, 0], [1, 1], Out((2, 3, 5, 4), I8)]),
        _c("q max_pool2d 2x2 stride 2 dilation 3x1", "max_pool2d", [xw, [2, 2], [3, 2], [0, 0], [3, 1], Out((2, 4, 3, 4), I8)]),
        _c("q max_pool2d 3x2 stride 1 dilation 1x3", "max_pool2d", [xw, [3, 2], [1, 1], [0, 0], [1, 3], Out((2, 4, 9, 5), I8)]),
        _c("q avg_pool2d 2x2", "avg_pool2d", [x, [2, 2], [2, 2], -6, m, s, lim, 3, Out((1, 3, 3, 3), I8)]),
        _c("q avg_pool2d global", "avg_pool2d", [x, [7, 6], [7, 6], 11, mg, sg, limg, -2, Out((1, 3, 1, 1), I8)]),
        # windows of 16 bytes and more (summed in assembler on Arm: native/q_pool_thumb.py), many
        # outputs, the mean's scale: a byte summed wrong moves an output
        _c("q avg_pool2d 4x4 stride 2", "avg_pool2d", [xw, [4, 4], [2, 2], 5, m16, s16, lim16, -1, Out((2, 4, 4, 3), I8)]),
        _c("q avg_pool2d 5x5 stride 1", "avg_pool2d", [xw, [5, 5], [1, 1], -9, m25, s25, lim25, 2, Out((2, 4, 7, 4), I8)]),
        Case(
            "q max_pool2d error padding",
            "mpy_et_quant::max_pool2d.out",
            [x, [2, 2], [2, 2], [2, 2], [1, 1], Out((1, 3, 5, 5), I8)],
            error=(INVALID_ARGUMENT, "padding"),
        ),
        Case(
            "q avg_pool2d error float",
            "mpy_et_quant::avg_pool2d.out",
            [x.float(), [2, 2], [2, 2], 0, m, s, lim, 0, Out((1, 3, 3, 3), I8)],
            error=(INVALID_TYPE, "input"),
        ),
    ]


def boundary_cases():
    g = torch.Generator().manual_seed(900)
    x = torch.cat([torch.randn(40, generator=g) * 3, torch.tensor([0.0, -0.0, float("inf"), float("-inf"), 1e-30, -1e-30, 1e30, -1e30])])
    x = torch.cat([x, torch.linspace(-2.0, 2.0, 72)])  # values near rounding boundaries of scale 1/32
    scale, zp = 1.0 / 32, -7
    th = quant_ref.quantize_thresholds(scale, zp)
    th_narrow = quant_ref.quantize_thresholds(0.013, 20, -127, 127)
    bk = quant_ref.quantize_buckets(th)
    table = quant_ref.dequantize_table(0.0123, -5)
    qx = q(3, 50, seed=901)
    return [
        _c("q quantize_per_tensor", "quantize_per_tensor", [x, th, bk, scale, zp, -128, 127, Out((120,), I8)]),
        _c(
            "q quantize_per_tensor -127..127",
            "quantize_per_tensor",
            [x.reshape(4, 30), th_narrow, quant_ref.quantize_buckets(th_narrow), 0.013, 20, -127, 127, Out((4, 30), I8)],
        ),
        _c("q dequantize_per_tensor", "dequantize_per_tensor", [qx, table, 0.0123, -5, Out((3, 50), torch.float32)]),
        Case(
            "q quantize error thresholds",
            "mpy_et_quant::quantize_per_tensor.out",
            [x, th[:10], bk, scale, zp, -128, 127, Out((120,), I8)],
            error=(INVALID_ARGUMENT, "thresholds must be int32[255, 2]"),
        ),
        Case(
            "q quantize error buckets of other thresholds",
            "mpy_et_quant::quantize_per_tensor.out",
            [x, th, quant_ref.quantize_buckets(th_narrow), scale, zp, -128, 127, Out((120,), I8)],
            error=(INVALID_ARGUMENT, "buckets entry"),
        ),
        Case(
            "q dequantize error table",
            "mpy_et_quant::dequantize_per_tensor.out",
            [qx, table[:10], 0.0123, -5, Out((3, 50), torch.float32)],
            error=(INVALID_ARGUMENT, "table must be float32[256]"),
        ),
    ]


def softmax_cases():
    x = q(2, 3, 12, seed=1000)
    flat = torch.tensor([[-128, 127, 127, 0, -128], [5, 5, 5, 5, 5]], dtype=I8)  # ties, extremes, a uniform row
    big = quant_ref.softmax_table(0.02, 2**20)  # K = 9: a long row keeps the sum small
    return [
        _c("q softmax last dim", "softmax", [x, quant_ref.softmax_table(0.1, 12), -1, 256, -128, Out((2, 3, 12), I8)]),
        _c("q softmax middle dim", "softmax", [x, quant_ref.softmax_table(0.37, 3), 1, 256, -128, Out((2, 3, 12), I8)]),
        _c("q softmax extremes", "softmax", [flat, quant_ref.softmax_table(0.05, 5), 1, 256, -128, Out((2, 5), I8)]),
        _c("q softmax levels 100 zp 0", "softmax", [x, quant_ref.softmax_table(0.2, 2), 0, 100, 0, Out((2, 3, 12), I8)]),
        Case(
            "q softmax error table range",
            "mpy_et_quant::softmax.out",
            [x, quant_ref.softmax_table(0.1, 1) * 4, -1, 256, -128, Out((2, 3, 12), I8)],
            error=(INVALID_ARGUMENT, "32-bit-safe"),
        ),
        Case(
            "q softmax error table shape",
            "mpy_et_quant::softmax.out",
            [x, big[:100], -1, 256, -128, Out((2, 3, 12), I8)],
            error=(INVALID_ARGUMENT, "table must be int32[256]"),
        ),
    ]


def lookup_cases():
    x = q(2, 3, 5, 4, seed=1100)
    x5 = q(1, 2, 3, 5, seed=1101)
    sig = quant_ref.lut_table(torch.sigmoid, 0.05, 3, 1.0 / 256, -128)
    gelu = quant_ref.lut_table(torch.nn.functional.gelu, 0.031, -20, 0.02, -100)
    return [
        _c("q lut sigmoid", "lut", [x, sig, Out((2, 3, 5, 4), I8)]),
        _c("q lut gelu 1-D", "lut", [x.reshape(-1), gelu, Out((120,), I8)]),
        _c("q upsample_nearest2d x2", "upsample_nearest2d", [x, [2.0, 2.0], Out((2, 3, 10, 8), I8)]),
        _c("q upsample_nearest2d 3x1", "upsample_nearest2d", [x, [3.0, 1.0], Out((2, 3, 15, 4), I8)]),
        # rows not word-aligned (copied as bytes), a 2x row of odd width, columns through the table
        _c("q upsample_nearest2d 1.5x2 odd", "upsample_nearest2d", [x5, [1.5, 2.0], Out((1, 2, 4, 10), I8)]),
        _c("q upsample_nearest2d 2x1.5", "upsample_nearest2d", [x5, [2.0, 1.5], Out((1, 2, 6, 7), I8)]),
        Case("q lut error table", "mpy_et_quant::lut.out", [x, sig[:255], Out((2, 3, 5, 4), I8)], error=(INVALID_ARGUMENT, "int8[256]")),
        Case(
            "q upsample_nearest2d error float",
            "mpy_et_quant::upsample_nearest2d.out",
            [x.float(), [2.0, 2.0], Out((2, 3, 10, 8), torch.float32)],
            error=(INVALID_TYPE, "input"),
        ),
    ]


def log_softmax_cases():
    from host_tools.quantize import ref_log_softmax as quant_ref_log_softmax

    x = q(3, 10, seed=1300)
    x[0] = 0
    x[0, 4] = 100  # one dominant logit
    et, lt, f = quant_ref_log_softmax.tables(0.05, 10, 0.06)
    et2, lt2, f2 = quant_ref_log_softmax.tables(0.3, 3, 0.1)
    y = q(2, 3, 4, seed=1301)
    return [
        _c("q log_softmax classifier", "log_softmax", [x, et, lt, -1, f, 127, Out((3, 10), I8)]),
        _c("q log_softmax middle dim", "log_softmax", [y, et2, lt2, 1, f2, 100, Out((2, 3, 4), I8)]),
        Case(
            "q log_softmax error log table",
            "mpy_et_quant::log_softmax.out",
            [x, et, lt[:100], -1, f, 127, Out((3, 10), I8)],
            error=(INVALID_ARGUMENT, "log_table must be int32[514]"),
        ),
    ]


def attention_cases():
    """bmm (attention's scores and weighted values) and layer norm."""
    from host_tools.quantize import ref_norm as quant_ref_norm

    a, b = q(2, 3, 8, seed=1200), q(2, 8, 5, seed=1201)
    m, s, lim = quant_ref.requant_params(0.0007)
    m2, s2, lim2 = quant_ref.requant_params(3.0)  # shift <= 21: the direct evaluation
    g = torch.Generator().manual_seed(1202)
    gamma = torch.randn(16, generator=g) * 0.5 + 1
    gamma[3] = -0.7  # a negative gain
    beta = torch.randn(16, generator=g) * 0.3
    ln = quant_ref_norm.params(gamma, beta, 1e-5, 16, 0.05, 0.03)
    ln_small = quant_ref_norm.params(None, None, 1e-5, 5, 0.9, 0.02)  # no gamma / beta
    x = q(3, 4, 16, seed=1203)
    x[0, 0] = 7  # a constant row (D = 0)
    x[0, 1] = 7
    x[0, 1, 5] = 8  # nearly constant (D small: j large)
    return [
        _c("q bmm", "bmm", [a, b, 3, -7, m, s, lim, 4, -128, 127, Out((2, 3, 5), I8)]),
        _c("q bmm direct shift relu", "bmm", [a, b, -128, 127, m2, s2, lim2, -20, -20, 127, Out((2, 3, 5), I8)]),
        _c("q layer_norm", "layer_norm", [x, ln[0], ln[1], ln[2], 3, -5, Out((3, 4, 16), I8)]),
        _c("q layer_norm no affine", "layer_norm", [q(2, 5, seed=1204), ln_small[0], ln_small[1], ln_small[2], -128, 0, Out((2, 5), I8)]),
        Case(
            "q bmm error shapes",
            "mpy_et_quant::bmm.out",
            [a, a, 0, 0, m, s, lim, 0, -128, 127, Out((2, 3, 8), I8)],
            error=(INVALID_ARGUMENT, "b must be"),
        ),
        Case(
            "q layer_norm error offsets",
            "mpy_et_quant::layer_norm.out",
            [x, ln[0], ln[1][:8], ln[2], 3, -5, Out((3, 4, 16), I8)],
            error=(INVALID_ARGUMENT, "offsets must be int32[16, 2]"),
        ),
        Case(
            "q layer_norm error size",
            "mpy_et_quant::layer_norm.out",
            [q(1, 130, seed=1205), ln[0], ln[1], ln[2], 3, -5, Out((1, 130), I8)],
            error=(INVALID_ARGUMENT, "outside 1..128"),
        ),
    ]


def cases():
    return (
        conv_cases()
        + linear_cases()
        + elementwise_cases()
        + pool_cases()
        + boundary_cases()
        + softmax_cases()
        + lookup_cases()
        + attention_cases()
        + log_softmax_cases()
    )

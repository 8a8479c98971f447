"""Cases for the network kernels: convolution, pooling, matrix products,
softmax."""

import torch

from mpy_et.errors import INVALID_ARGUMENT, INVALID_TYPE, NOT_SUPPORTED
from tests.kernel_cases import Case, Out
from tests.kernel_cases_elementwise import F64, I32, I64, INF, NAN, rnd

CONV = "aten::convolution.out"
MAXPOOL = "aten::max_pool2d_with_indices.out"
AVGPOOL = "aten::avg_pool2d.out"


def _conv_out(x, w, stride, padding, dilation, groups):
    fn = torch.nn.functional.conv1d if x.dim() == 3 else torch.nn.functional.conv2d
    return tuple(fn(x, w, None, stride, padding, dilation, groups).shape)


def conv_cases():
    # (name, input shape, weight shape, bias?, stride, padding, dilation, groups)
    configs = [
        ("3x3", (1, 3, 5, 5), (4, 3, 3, 3), True, [1, 1], [0, 0], [1, 1], 1),
        ("3x3 pad 1", (1, 3, 5, 5), (4, 3, 3, 3), True, [1, 1], [1, 1], [1, 1], 1),
        ("3x3 stride 2 pad 1", (1, 2, 7, 6), (3, 2, 3, 3), True, [2, 2], [1, 1], [1, 1], 1),
        ("3x3 dilation 2", (1, 2, 7, 7), (2, 2, 3, 3), False, [1, 1], [0, 0], [2, 2], 1),
        ("3x3 asymmetric", (2, 2, 6, 8), (3, 2, 3, 3), True, [1, 2], [1, 0], [2, 1], 1),
        ("3x3 stride 2 dilation 2 down only", (1, 2, 9, 7), (3, 2, 3, 3), True, [2, 1], [1, 1], [2, 1], 1),
        ("3x3 pad 2 > half kernel", (1, 1, 4, 4), (2, 1, 3, 3), True, [1], [2], [1], 1),
        ("3x3 groups 2", (1, 4, 6, 6), (6, 2, 3, 3), True, [1, 1], [1, 1], [1, 1], 2),
        ("3x3 depthwise", (1, 4, 6, 6), (4, 1, 3, 3), True, [1, 1], [1, 1], [1, 1], 4),
        ("3x3 depthwise x2 stride 2", (2, 3, 7, 7), (6, 1, 3, 3), False, [2, 2], [1, 1], [1, 1], 3),
        # f32_conv_dw_fpu's (Cortex-M7): batches, no bias, uneven stride and padding
        ("3x3 depthwise batch 2 no bias", (2, 5, 9, 8), (5, 1, 3, 3), False, [2, 1], [0, 2], [1, 1], 5),
        ("3x3 depthwise pad 2 x 0 stride 3", (1, 3, 5, 7), (3, 1, 3, 3), True, [1, 3], [2, 0], [1, 1], 3),
        ("1x1", (1, 5, 4, 4), (3, 5, 1, 1), True, [1, 1], [0, 0], [1, 1], 1),
        ("1x1 stride 2", (1, 5, 5, 5), (3, 5, 1, 1), False, [2], [0], [1], 1),
        ("1x1 pad 1", (1, 2, 3, 3), (3, 2, 1, 1), True, [1, 1], [1, 1], [1, 1], 1),
        ("2x3", (1, 2, 5, 6), (3, 2, 2, 3), True, [1, 1], [1, 0], [1, 1], 1),
        ("5x5 stride 2 pad 2", (1, 2, 9, 9), (2, 2, 5, 5), True, [2, 2], [2, 2], [1, 1], 1),
        ("4x4 dilation 2 groups 2", (1, 4, 10, 9), (4, 2, 4, 4), True, [1, 2], [1, 3], [2, 2], 2),
        ("kernel = input", (1, 2, 3, 3), (5, 2, 3, 3), True, [1, 1], [0, 0], [1, 1], 1),
        ("1x1 input", (1, 3, 1, 1), (2, 3, 1, 1), True, [1, 1], [0, 0], [1, 1], 1),
        ("1-D k3", (1, 3, 10), (4, 3, 3), True, [1], [1], [1], 1),
        ("1-D k5 stride 2 dilation 2 groups 3", (2, 3, 17), (6, 1, 5), True, [2], [2], [2], 3),
        ("1-D k1", (1, 4, 6), (2, 4, 1), False, [1], [0], [1], 1),
        ("1x1 groups 2 batch 2", (2, 4, 3, 5), (6, 2, 1, 1), True, [1, 1], [0, 0], [1, 1], 2),
        ("1x1 k=9 channels", (1, 9, 2, 3), (2, 9, 1, 1), True, [1, 1], [0, 0], [1, 1], 1),
        # 700 outputs per channel: passes of 2 + 1 output channels per group (op_convolution.passes)
        ("3x3 groups 2 in passes", (1, 2, 20, 35), (6, 1, 3, 3), True, [1, 1], [1, 1], [1, 1], 2),
    ]
    cases = []
    for name, xs, ws, has_bias, stride, padding, dilation, groups in configs:
        x, w = rnd(*xs, seed=11), rnd(*ws, seed=12)
        b = rnd(ws[0], seed=13) if has_bias else None
        out = _conv_out(x, w, stride, padding, dilation, groups)
        args = [x, w, b, stride, padding, dilation, False, [0] * len(stride), groups, Out(out)]
        cases.append(Case("conv " + name, CONV, args))
    x, w, b = rnd(1, 2, 5, 5, dtype=F64), rnd(3, 2, 3, 3, dtype=F64), rnd(3, dtype=F64)
    cases.append(
        Case("conv f64", CONV, [x, w, b, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, Out((1, 3, 5, 5), F64)], atol=1e-12, rtol=1e-12)
    )
    x = rnd(1, 4, 6, 6, scale=100.0)
    cases.append(
        Case("conv large values", CONV, [x, rnd(2, 4, 3, 3), None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, Out((1, 2, 6, 6))], atol=1e-3)
    )
    return cases


def conv_errors():
    x, w, b = rnd(1, 3, 5, 5), rnd(4, 3, 3, 3), rnd(4)
    ok = [x, w, b, [1, 1], [0, 0], [1, 1], False, [0, 0], 1, Out((1, 4, 3, 3))]

    def bad(**kw):
        args = list(ok)
        for k, v in kw.items():
            args[["x", "w", "b", "stride", "padding", "dilation", "transposed", "output_padding", "groups", "out"].index(k)] = v
        return args

    e = [
        ("transposed not a bool", bad(transposed=1), INVALID_TYPE, "transposed"),
        ("int input", bad(x=rnd(1, 3, 5, 5, dtype=I32)), INVALID_TYPE, "input is int32"),
        ("dtype mismatch", bad(w=rnd(4, 3, 3, 3, dtype=F64)), INVALID_TYPE, "dtype mismatch"),
        ("2-D input", bad(x=rnd(3, 5)), INVALID_ARGUMENT, "3-D (N, C, L) or 4-D"),
        ("weight dims", bad(w=rnd(4, 3, 3)), INVALID_ARGUMENT, "as many dims"),
        ("weight channels", bad(w=rnd(4, 2, 3, 3)), INVALID_ARGUMENT, "input channels per group"),
        ("groups do not divide", bad(groups=2), INVALID_ARGUMENT, "divisible by groups"),
        ("groups zero", bad(groups=0), INVALID_ARGUMENT, "groups must be"),
        ("bias shape", bad(b=rnd(3)), INVALID_ARGUMENT, "bias must be [4]"),
        ("bias dtype", bad(b=rnd(4, dtype=F64)), INVALID_TYPE, "dtype mismatch"),
        ("stride zero", bad(stride=[0, 1]), INVALID_ARGUMENT, "stride must be >= 1"),
        ("negative padding", bad(padding=[-1]), INVALID_ARGUMENT, "padding must be >= 0"),
        ("stride too long", bad(stride=[1, 1, 1]), INVALID_ARGUMENT, "1 or 2 values"),
        ("stride not ints", bad(stride=[1.5, 1]), INVALID_ARGUMENT, "list of ints"),
        (
            "1-D stride too long",
            bad(x=rnd(1, 3, 5), w=rnd(4, 3, 3), stride=[1, 1], out=Out((1, 4, 3))),
            INVALID_ARGUMENT,
            "must have 1 value",
        ),
        ("kernel too large", bad(w=rnd(4, 3, 7, 7), out=Out((1, 4, 1, 1))), INVALID_ARGUMENT, "larger than the padded input"),
        ("wrong out shape", bad(out=Out((1, 4, 5, 5))), INVALID_ARGUMENT, "result has shape [1, 4, 3, 3]"),
    ]
    return [Case("conv error " + n, CONV, args, error=(code, text)) for n, args, code, text in e]


def pool_cases():
    x = rnd(2, 3, 7, 8, seed=21)
    ties = torch.tensor([[[[1.0, 3.0, 3.0, 0.0], [3.0, 2.0, 1.0, 3.0], [0.0, 0.0, 0.0, 0.0], [-INF, -INF, -INF, -INF]]]])
    special = torch.tensor([[[[1.0, NAN, 2.0], [NAN, 0.0, 5.0], [-1.0, -2.0, INF]]]])
    cases = []
    # (name, input, kernel, stride, padding, dilation, ceil_mode)
    for name, t, k, s, p, d, ceil in [
        ("k2", x, [2, 2], [2, 2], [0, 0], [1, 1], False),
        ("k3 s2 p1", x, [3, 3], [2, 2], [1, 1], [1, 1], False),
        ("k3 default stride", x, [3], [], [0], [1], False),
        ("k2 dilation 2", x, [2, 2], [1, 1], [1, 1], [2, 2], False),
        ("k3 s2 ceil", x, [3, 3], [2, 2], [0, 0], [1, 1], True),
        ("k2 s2 p1 ceil", x, [2, 2], [2, 2], [1, 1], [1, 1], True),
        ("k(2,3) s(1,2) asymmetric", x, [2, 3], [1, 2], [1, 0], [1, 2], False),
        ("3-D input", x[0], [2, 2], [2, 2], [0, 0], [1, 1], False),
        ("ties and -inf", ties, [2, 2], [1, 1], [0, 0], [1, 1], False),
        ("nan and inf", special, [2, 2], [1, 1], [1, 1], [1, 1], True),
    ]:
        out = torch.nn.functional.max_pool2d(t, k, s or None, p, d, ceil_mode=ceil)
        args = [t, k, s, p, d, ceil, Out(out.shape), Out(out.shape, I64)]
        cases.append(Case("max_pool2d " + name, MAXPOOL, args))
    for name, t, k, s, p, ceil, incl, div in [
        ("k2", x, [2, 2], [2, 2], [0, 0], False, True, None),
        ("k3 s2 p1 include pad", x, [3, 3], [2, 2], [1, 1], False, True, None),
        ("k3 s2 p1 exclude pad", x, [3, 3], [2, 2], [1, 1], False, False, None),
        ("k3 s2 p1 ceil", x, [3, 3], [2, 2], [1, 1], True, True, None),
        ("k3 s2 p1 ceil exclude pad", x, [3, 3], [2, 2], [1, 1], True, False, None),
        ("k2 default stride divisor 3", x, [2], [], [0], False, True, 3),
        ("global 7x8", x, [7, 8], [7, 8], [0, 0], False, True, None),
        # a global pool is a soft-float product on native ports: a divisor, then inf/NaN (its fallback)
        ("global 7x8 divisor 5", x, [7, 8], [7, 8], [0, 0], False, True, 5),
        ("global nan and inf", special, [3, 3], [3, 3], [0, 0], False, True, None),
        ("global inf", torch.where(special.isnan(), 1.0, special), [3, 3], [3, 3], [0, 0], False, True, None),
        ("3-D input", x[1], [2, 3], [1, 2], [1, 1], False, False, None),
    ]:
        out = torch.nn.functional.avg_pool2d(t, k, s or None, p, ceil, incl, div)
        cases.append(Case("avg_pool2d " + name, AVGPOOL, [t, k, s, p, ceil, incl, div, Out(out.shape)]))
    return cases


def pool_errors():
    x = rnd(1, 2, 6, 6)
    e = [
        (
            MAXPOOL,
            "padding too large",
            [x, [2, 2], [2, 2], [2, 2], [1, 1], False, Out((1, 2, 5, 5)), Out((1, 2, 5, 5), I64)],
            INVALID_ARGUMENT,
            "at most half",
        ),
        (
            MAXPOOL,
            "wrong out shape",
            [x, [2, 2], [2, 2], [0, 0], [1, 1], False, Out((1, 2, 4, 4)), Out((1, 2, 4, 4), I64)],
            INVALID_ARGUMENT,
            "result has shape [1, 2, 3, 3]",
        ),
        (
            MAXPOOL,
            "indices shape",
            [x, [2, 2], [2, 2], [0, 0], [1, 1], False, Out((1, 2, 3, 3)), Out((1, 2, 3), I64)],
            INVALID_ARGUMENT,
            "indices",
        ),
        (
            MAXPOOL,
            "float indices",
            [x, [2, 2], [2, 2], [0, 0], [1, 1], False, Out((1, 2, 3, 3)), Out((1, 2, 3, 3))],
            INVALID_TYPE,
            "indices",
        ),
        (
            MAXPOOL,
            "2-D input",
            [x[0, 0], [2, 2], [2, 2], [0, 0], [1, 1], False, Out((3, 3)), Out((3, 3), I64)],
            INVALID_ARGUMENT,
            "3-D (C, H, W) or 4-D",
        ),
        (
            MAXPOOL,
            "int input",
            [rnd(1, 2, 6, 6, dtype=I32), [2, 2], [2, 2], [0, 0], [1, 1], False, Out((1, 2, 3, 3), I32), Out((1, 2, 3, 3), I64)],
            INVALID_TYPE,
            "int32",
        ),
        (
            MAXPOOL,
            "kernel zero",
            [x, [0, 2], [2, 2], [0, 0], [1, 1], False, Out((1, 2, 3, 3)), Out((1, 2, 3, 3), I64)],
            INVALID_ARGUMENT,
            "kernel_size must be >= 1",
        ),
        (
            MAXPOOL,
            "kernel larger than input",
            [x, [7, 7], [1, 1], [0, 0], [1, 1], False, Out((1, 2, 1, 1)), Out((1, 2, 1, 1), I64)],
            INVALID_ARGUMENT,
            "too small",
        ),
        (
            MAXPOOL,
            "ceil_mode not a bool",
            [x, [2, 2], [2, 2], [0, 0], [1, 1], 1, Out((1, 2, 3, 3)), Out((1, 2, 3, 3), I64)],
            INVALID_TYPE,
            "ceil_mode",
        ),
        (AVGPOOL, "divisor zero", [x, [2, 2], [2, 2], [0, 0], False, True, 0, Out((1, 2, 3, 3))], INVALID_ARGUMENT, "divisor_override"),
        (AVGPOOL, "padding too large", [x, [2, 2], [2, 2], [2, 2], False, True, None, Out((1, 2, 5, 5))], INVALID_ARGUMENT, "at most half"),
        (
            AVGPOOL,
            "wrong out shape",
            [x, [2, 2], [2, 2], [0, 0], False, True, None, Out((1, 2, 3, 4))],
            INVALID_ARGUMENT,
            "result has shape",
        ),
        (AVGPOOL, "dtype mismatch", [x, [2, 2], [2, 2], [0, 0], False, True, None, Out((1, 2, 3, 3), F64)], INVALID_TYPE, "dtype mismatch"),
    ]
    return [Case("%s error %s" % (op.split("::")[1].split(".")[0], n), op, args, error=(code, text)) for op, n, args, code, text in e]


def matmul_cases():
    cases = []
    for m, k, n in [(3, 5, 4), (1, 1, 1), (2, 8, 3), (4, 7, 6), (1, 33, 10), (2, 0, 3)]:
        a, b = rnd(m, k, seed=31), rnd(k, n, seed=32)
        cases.append(Case("mm %dx%dx%d" % (m, k, n), "aten::mm.out", [a, b, Out((m, n))]))
        for bs in sorted({(n,), (m, n), (1, n), (m, 1), ()}):
            bias = rnd(*bs, seed=33)
            cases.append(Case("addmm %dx%dx%d bias %s" % (m, k, n, list(bs)), "aten::addmm.out", [bias, a, b, 1, 1, Out((m, n))]))
    a, b, bias = rnd(3, 6), rnd(6, 2), rnd(2)
    cases += [
        Case("addmm beta 0.5 alpha 2", "aten::addmm.out", [bias, a, b, 0.5, 2.0, Out((3, 2))]),
        Case("addmm beta 0 ignores nan", "aten::addmm.out", [torch.full((2,), NAN), a, b, 0, 1.5, Out((3, 2))]),
        Case("addmm f64", "aten::addmm.out", [bias.double(), a.double(), b.double(), 1, 1, Out((3, 2), F64)], atol=1e-12, rtol=1e-12),
        Case("mm large values", "aten::mm.out", [rnd(3, 9, scale=1e3), rnd(9, 4, scale=1e3), Out((3, 4))], rtol=1e-5, atol=1e-1),
        Case("bmm", "aten::bmm.out", [rnd(2, 3, 5), rnd(2, 5, 4), Out((2, 3, 4))]),
        Case("bmm batch 1 k 9", "aten::bmm.out", [rnd(1, 2, 9), rnd(1, 9, 3), Out((1, 2, 3))]),
        # rows summed in blocks of 1024 // n: two blocks of 2 rows (op_mm.row_block)
        Case("mm 2 row blocks", "aten::mm.out", [rnd(3, 5, seed=34), rnd(5, 400, seed=35), Out((3, 400))]),
        Case("addmm 2 row blocks", "aten::addmm.out", [rnd(3, 1), rnd(3, 5, seed=34), rnd(5, 400, seed=35), 0.5, 2.0, Out((3, 400))]),
        Case("bmm 2 row blocks", "aten::bmm.out", [rnd(2, 3, 6), rnd(2, 6, 350), Out((2, 3, 350))]),
    ]
    # inf / NaN operands: 64-bit viper ports hand these to the bytecode step (f32_mm_viper)
    inf_a, nan_b, inf_bias = rnd(3, 6), rnd(2, 6, 4), rnd(2)
    inf_a[1, 2] = float("inf")
    nan_b[1, 3, 0] = NAN
    inf_bias[0] = -float("inf")
    zeros = torch.zeros(6, 2)
    cases += [
        Case("mm inf in self", "aten::mm.out", [inf_a, b, Out((3, 2))]),
        Case("mm inf times zero", "aten::mm.out", [inf_a, zeros, Out((3, 2))]),
        Case("bmm nan in mat2", "aten::bmm.out", [rnd(2, 3, 6), nan_b, Out((2, 3, 4))]),
        Case("addmm -inf in bias", "aten::addmm.out", [inf_bias, a, b, 1, 1, Out((3, 2))]),
        Case(
            "addmm tiny and huge",
            "aten::addmm.out",
            [rnd(2, scale=1e-39, seed=41), rnd(3, 6, scale=1e-20, seed=42), rnd(6, 2, scale=1e30, seed=43), 1, 1, Out((3, 2))],
        ),
    ]
    return cases


def matmul_errors():
    a, b = rnd(3, 4), rnd(4, 5)
    e = [
        ("aten::mm.out", "mm inner mismatch", [a, rnd(5, 4), Out((3, 4))], INVALID_ARGUMENT, "cannot be multiplied"),
        ("aten::mm.out", "mm wrong out", [a, b, Out((3, 4))], INVALID_ARGUMENT, "result has shape [3, 5]"),
        ("aten::mm.out", "mm 3-D", [rnd(2, 3, 4), b, Out((3, 5))], INVALID_ARGUMENT, "must have 2 dims"),
        ("aten::mm.out", "mm int", [rnd(3, 4, dtype=I32), rnd(4, 5, dtype=I32), Out((3, 5), I32)], INVALID_TYPE, "int32"),
        ("aten::mm.out", "mm dtype mismatch", [a, b.double(), Out((3, 5))], INVALID_TYPE, "dtype mismatch"),
        ("aten::addmm.out", "addmm bias does not broadcast", [rnd(4), a, b, 1, 1, Out((3, 5))], INVALID_ARGUMENT, "do not broadcast"),
        ("aten::addmm.out", "addmm bias 3-D", [rnd(1, 1, 5), a, b, 1, 1, Out((3, 5))], INVALID_ARGUMENT, "does not broadcast"),
        ("aten::addmm.out", "addmm beta not a number", [rnd(5), a, b, None, 1, Out((3, 5))], INVALID_TYPE, "beta"),
        ("aten::addmm.out", "addmm bias dtype", [rnd(5, dtype=F64), a, b, 1, 1, Out((3, 5))], INVALID_TYPE, "dtype mismatch"),
        ("aten::bmm.out", "bmm batch mismatch", [rnd(2, 3, 4), rnd(3, 4, 5), Out((2, 3, 5))], INVALID_ARGUMENT, "cannot be multiplied"),
        ("aten::bmm.out", "bmm 2-D", [a, b, Out((3, 5))], INVALID_ARGUMENT, "must have 3 dims"),
    ]
    return [Case(n, op, args, error=(code, text)) for op, n, args, code, text in e]


def softmax_cases():
    x = rnd(2, 3, 4, seed=41)
    big = rnd(3, 5, scale=1e4, seed=42)
    neg = torch.tensor([[0.0, -INF, 1.0], [-INF, -INF, 2.0]])
    # rows of 8+ elements take the native steps (f32_softmax_viper, f32_exp_fpu): every
    # stride, a wide range (exp underflow), and rows with -inf, NaN, +inf and all -inf
    wide = rnd(9, 12, 10, scale=30.0, seed=43)
    odd = rnd(5, 10, seed=44)
    odd[1, 3] = -INF
    odd[2, 0] = NAN
    odd[3, 9] = INF
    odd[4, :] = -INF
    cases = [
        Case("_softmax long rows dim %d" % d, "aten::_softmax.out", [wide, d, False, Out(wide.shape)], atol=1e-6, rtol=1e-5)
        for d in (-1, 0, 1)
    ]
    cases.append(Case("_softmax long rows -inf nan inf", "aten::_softmax.out", [odd, 1, False, Out(odd.shape)], atol=1e-6, rtol=1e-5))
    for op in ("_softmax", "_log_softmax"):
        key = "aten::%s.out" % op
        for d in (-1, 0, 1, 2):
            cases.append(Case("%s dim %d" % (op, d), key, [x, d, False, Out(x.shape)]))
        cases += [
            Case("%s large values" % op, key, [big, 1, False, Out(big.shape)], atol=1e-4),
            Case("%s -inf entries" % op, key, [neg, 1, False, Out(neg.shape)]),
            Case("%s 0-dim" % op, key, [torch.tensor(3.0), 0, False, Out(())]),
            Case("%s f64" % op, key, [x.double(), -1, False, Out(x.shape, F64)], atol=1e-12, rtol=1e-12),
            Case("%s size-1 dim" % op, key, [rnd(3, 1), 1, False, Out((3, 1))]),
            Case("%s error half_to_float" % op, key, [x, -1, True, Out(x.shape)], error=(NOT_SUPPORTED, "half_to_float")),
            Case("%s error int input" % op, key, [rnd(3, dtype=I32), 0, False, Out((3,), I32)], error=(INVALID_TYPE, "int32")),
            Case("%s error bad dim" % op, key, [x, 3, False, Out(x.shape)], error=(INVALID_ARGUMENT, "out of range")),
            Case("%s error dim not an int" % op, key, [x, None, False, Out(x.shape)], error=(INVALID_ARGUMENT, "dim must be an int")),
            Case("%s error out shape" % op, key, [x, 0, False, Out((2, 3))], error=(INVALID_ARGUMENT, "result has shape")),
            Case("%s error out dtype" % op, key, [x, 0, False, Out(x.shape, F64)], error=(INVALID_TYPE, "dtype mismatch")),
        ]
    return cases


def cases():
    return conv_cases() + conv_errors() + pool_cases() + pool_errors() + matmul_cases() + matmul_errors() + softmax_cases()

"""Cases for the layer kernels added for real models: transposed
convolution, seeded random convolution and pooling geometries, batch norm,
layer norm and group norm."""

import torch

from mpy_et.errors import INVALID_ARGUMENT, INVALID_TYPE
from tests.kernel_cases import Case, Out
from tests.kernel_cases_elementwise import F64, I32, I64, INF, NAN, rnd

CONV = "aten::convolution.out"
BN = "aten::_native_batch_norm_legit_no_training.out"
LN = "aten::native_layer_norm.out"
F = torch.nn.functional


def conv_transposed_cases():
    # (name, input, weight (in, out/groups, k...), bias, stride, padding, dilation, output_padding, groups)
    configs = [
        ("3x3", (1, 2, 4, 4), (2, 3, 3, 3), True, [1, 1], [0, 0], [1, 1], [0, 0], 1),
        ("3x3 stride 2 pad 1 out pad 1", (1, 3, 4, 5), (3, 2, 3, 3), True, [2, 2], [1, 1], [1, 1], [1, 1], 1),
        ("2x2 stride 2 (decoder)", (2, 4, 3, 3), (4, 2, 2, 2), False, [2, 2], [0, 0], [1, 1], [0, 0], 1),
        ("3x3 dilation 2 groups 2", (1, 4, 4, 4), (4, 3, 3, 3), True, [1, 2], [1, 2], [2, 1], [0, 1], 2),
        ("depthwise 4x4 stride 2 pad 1", (1, 3, 5, 5), (3, 1, 4, 4), True, [2, 2], [1, 1], [1, 1], [0, 0], 3),
        ("1x1", (1, 3, 2, 3), (3, 2, 1, 1), True, [1, 1], [0, 0], [1, 1], [0, 0], 1),
        ("1-D k3 stride 2", (1, 3, 6), (3, 2, 3), True, [2], [0], [1], [0], 1),
        ("1-D k4 stride 3 pad 1 out pad 2 groups 3", (2, 3, 5), (3, 2, 4), True, [3], [1], [1], [2], 3),
    ]
    cases = []
    for name, xs, ws, has_bias, s, p, d, op, g in configs:
        x, w = rnd(*xs, seed=71), rnd(*ws, seed=72)
        b = rnd(ws[1] * g, seed=73) if has_bias else None
        fn = F.conv_transpose1d if len(xs) == 3 else F.conv_transpose2d
        out = fn(x, w, b, s, p, op, g, d).shape
        cases.append(Case("conv transposed " + name, CONV, [x, w, b, s, p, d, True, op, g, Out(out)]))
    x, w = rnd(1, 2, 3, 3, dtype=F64), rnd(2, 2, 3, 3, dtype=F64)
    args = [x, w, None, [2, 2], [1, 1], [1, 1], True, [1, 1], 1, Out((1, 2, 6, 6), F64)]
    cases.append(Case("conv transposed f64", CONV, args, atol=1e-12, rtol=1e-12))
    x, w = rnd(1, 2, 3, 3), rnd(2, 2, 3, 3)
    e = [
        ("output_padding too large", [x, w, None, [1, 1], [0, 0], [1, 1], True, [1, 1], 1, Out((1, 2, 6, 6))], "output_padding"),
        ("weight channels", [x, rnd(3, 2, 3, 3), None, [1, 1], [0, 0], [1, 1], True, [0, 0], 1, Out((1, 2, 5, 5))], "input channels first"),
        ("bias shape", [x, w, rnd(3), [1, 1], [0, 0], [1, 1], True, [0, 0], 1, Out((1, 2, 5, 5))], "bias must be [2]"),
        ("out shape", [x, w, None, [1, 1], [0, 0], [1, 1], True, [0, 0], 1, Out((1, 2, 4, 4))], "result has shape [1, 2, 5, 5]"),
        ("padding eats the output", [rnd(1, 2, 1, 1), w, None, [1, 1], [2, 2], [1, 1], True, [0, 0], 1, Out((1, 2, 1, 1))], "no output"),
        (
            "groups",
            [rnd(1, 3, 3, 3), rnd(3, 2, 3, 3), None, [1, 1], [0, 0], [1, 1], True, [0, 0], 2, Out((1, 4, 5, 5))],
            "divisible by groups",
        ),
    ]
    cases += [Case("conv transposed error " + n, CONV, a, error=(INVALID_ARGUMENT, t)) for n, a, t in e]
    return cases


def generated_cases():
    """Seeded random geometries for convolution (plain and transposed) and
    pooling, against torch."""
    g = torch.Generator().manual_seed(2024)

    def pick(*options):
        return options[int(torch.randint(len(options), (1,), generator=g))]

    cases = []
    for i in range(12):
        one_d = i % 3 == 2
        groups = pick(1, 2, 3)
        cin, cout = groups * pick(1, 2), groups * pick(1, 2)
        k = [pick(1, 2, 3, 5) for _ in range(1 if one_d else 2)]
        s = [pick(1, 2, 3) for _ in k]
        d = [pick(1, 2) for _ in k]
        transposed = i % 2 == 1
        if transposed:
            p = [pick(0, 1) for _ in k]
            op = [pick(0, 1) % max(a, b) for a, b in zip(s, d)]
        else:
            p = [pick(0, 1, 2) for _ in k]
            op = [0] * len(k)
        size = [pick(3, 5, 8) + (dd * (kk - 1) if not transposed else 0) for kk, dd in zip(k, d)]
        x = rnd(pick(1, 2), cin, *size, seed=100 + i)
        w = rnd(*((cin, cout // groups) if transposed else (cout, cin // groups)), *k, seed=200 + i)
        b = rnd(cout, seed=300 + i) if i % 4 else None
        fn = torch.ops.aten.convolution.default
        out = fn(x, w, b, s, p, d, transposed, op, groups).shape
        args = [x, w, b, s, p, d, transposed, op, groups, Out(out)]
        cases.append(Case("conv generated %d %s k%s s%s p%s d%s g%d" % (i, "T" if transposed else "", k, s, p, d, groups), CONV, args))
    x = rnd(1, 2, 9, 8, seed=400)
    for i in range(8):
        k = [pick(1, 2, 3, 4), pick(2, 3)]
        s = [pick(1, 2, 3), pick(1, 2)]
        p = [pick(0, 1) if kk > 1 else 0 for kk in k]
        ceil, incl = bool(i % 2), bool(i % 3)
        div = pick(None, None, 5)
        out = F.avg_pool2d(x, k, s, p, ceil, incl, div).shape
        cases.append(Case("avg_pool2d generated %d" % i, "aten::avg_pool2d.out", [x, k, s, p, ceil, incl, div, Out(out)]))
        dil = [pick(1, 2), 1]
        out = F.max_pool2d(x, k, s, p, dil, ceil_mode=ceil).shape
        mp = [x, k, s, p, dil, ceil, Out(out), Out(out, I64)]
        cases.append(Case("max_pool2d generated %d" % i, "aten::max_pool2d_with_indices.out", mp))
    return cases


def norm_cases():
    cases = []
    for name, shape, affine in [
        ("2-D conv", (2, 3, 4, 5), True),
        ("1-D", (4, 3), True),
        ("1-D seq", (2, 3, 6), False),
        ("one channel", (1, 1, 2, 2), True),
    ]:
        c = shape[1]
        x = rnd(*shape, seed=81) * 2 + 0.5
        w, b = (rnd(c, seed=82), rnd(c, seed=83)) if affine else (None, None)
        mean, var = rnd(c, seed=84), rnd(c, seed=85).abs() + 0.1
        cases.append(Case("batch_norm %s" % name, BN, [x, w, b, mean, var, 0.1, 1e-5, Out(shape), Out((0,)), Out((0,))]))
    x, mean, var = rnd(2, 3, 4), rnd(3), rnd(3).abs() + 0.5
    cases += [
        Case("batch_norm eps 1e-3", BN, [x, rnd(3), rnd(3), mean, var, 0.1, 1e-3, Out((2, 3, 4)), Out((0,)), Out((0,))]),
        Case(
            "batch_norm f64",
            BN,
            [x.double(), None, None, mean.double(), var.double(), 0.1, 1e-5, Out((2, 3, 4), F64), Out((0,), F64), Out((0,), F64)],
            atol=1e-12,
            rtol=1e-12,
        ),
        Case("batch_norm empty batch", BN, [torch.zeros(0, 3, 2), None, None, mean, var, 0.1, 1e-5, Out((0, 3, 2)), Out((0,)), Out((0,))]),
        Case(
            "batch_norm large values",
            BN,
            [rnd(1, 3, 4, scale=1e4), None, rnd(3), mean, var, 0.1, 1e-5, Out((1, 3, 4)), Out((0,)), Out((0,))],
            atol=1e-3,
        ),
    ]
    b = [x, None, None, mean, var, 0.1, 1e-5]
    e = [
        ("1-D input", [rnd(3), None, None, mean, var, 0.1, 1e-5, Out((3,)), Out((0,)), Out((0,))], INVALID_ARGUMENT, "at least 2 dims"),
        (
            "mean shape",
            [x, None, None, rnd(4), var, 0.1, 1e-5, Out((2, 3, 4)), Out((0,)), Out((0,))],
            INVALID_ARGUMENT,
            "running_mean must be [3]",
        ),
        (
            "int input",
            [rnd(2, 3, dtype=I32), None, None, mean, var, 0.1, 1e-5, Out((2, 3), I32), Out((0,)), Out((0,))],
            INVALID_TYPE,
            "int32",
        ),
        ("out shape", b + [Out((2, 3, 5)), Out((0,)), Out((0,))], INVALID_ARGUMENT, "out0"),
        ("saved stats not empty", b + [Out((2, 3, 4)), Out((3,)), Out((0,))], INVALID_ARGUMENT, "out1 (saved statistics) must be empty"),
        ("negative eps", [x, None, None, mean, var, 0.1, -1.0, Out((2, 3, 4)), Out((0,)), Out((0,))], INVALID_ARGUMENT, "eps"),
    ]
    cases += [Case("batch_norm error " + n, BN, a, error=(code, t)) for n, a, code, t in e]
    for name, shape, norm, affine in [
        ("last dim", (2, 5, 8), [8], "both"),
        ("two dims", (3, 4, 6), [4, 6], "both"),
        ("weight only", (4, 7), [7], "weight"),
        ("bias only", (4, 7), [7], "bias"),
        ("plain", (2, 3, 5), [5], "none"),
        ("single element rows", (3, 1), [1], "both"),
    ]:
        x = rnd(*shape, seed=86) * 3 + 1
        w = rnd(*norm, seed=87) if affine in ("both", "weight") else None
        b = rnd(*norm, seed=88) if affine in ("both", "bias") else None
        stat = tuple(shape[: len(shape) - len(norm)]) + (1,) * len(norm)
        cases.append(Case("layer_norm %s" % name, LN, [x, norm, w, b, 1e-5, Out(shape), Out(stat), Out(stat)], atol=1e-5, rtol=1e-4))
    special = rnd(4, 16, seed=89) * 2
    special[1, 5] = INF
    special[2, 0] = NAN
    w, b = rnd(16, seed=90), rnd(16, seed=91)
    cases += [
        # torch's saved mean of a row holding inf is NaN (Welford's update), ours inf: out0 only
        Case("layer_norm inf and nan rows", LN, [special, [16], w, b, 1e-5, Out((4, 16)), Out((0,)), Out((0,))], atol=1e-5, rtol=1e-4),
        Case(
            "layer_norm nan row stats",
            LN,
            [special[[0, 2]], [16], w, b, 1e-5, Out((2, 16)), Out((2, 1)), Out((2, 1))],
            atol=1e-5,
            rtol=1e-4,
        ),
        Case(
            "layer_norm weight only 16",
            LN,
            [special[[0, 3]], [16], w, None, 1e-5, Out((2, 16)), Out((2, 1)), Out((2, 1))],
            atol=1e-5,
            rtol=1e-4,
        ),
    ]
    x = rnd(2, 4)
    cases += [
        Case(
            "layer_norm constant row",
            LN,
            [torch.full((2, 4), 3.0), [4], None, None, 1e-5, Out((2, 4)), Out((2, 1)), Out((2, 1))],
            atol=1e-5,
            rtol=1e-4,
        ),
        Case(
            "layer_norm f64",
            LN,
            [x.double(), [4], None, None, 1e-6, Out((2, 4), F64), Out((2, 1), F64), Out((2, 1), F64)],
            atol=1e-10,
            rtol=1e-10,
        ),
        Case(
            "layer_norm error shape",
            LN,
            [x, [3], None, None, 1e-5, Out((2, 4)), Out((2, 1)), Out((2, 1))],
            error=(INVALID_ARGUMENT, "trailing dims"),
        ),
        Case(
            "layer_norm error weight",
            LN,
            [x, [4], rnd(3), None, 1e-5, Out((2, 4)), Out((2, 1)), Out((2, 1))],
            error=(INVALID_ARGUMENT, "weight must have shape [4]"),
        ),
        Case(
            "layer_norm error stats shape",
            LN,
            [x, [4], None, None, 1e-5, Out((2, 4)), Out((2,)), Out((2, 1))],
            error=(INVALID_ARGUMENT, "out1"),
        ),
        Case(
            "layer_norm error int",
            LN,
            [rnd(2, 4, dtype=I32), [4], None, None, 1e-5, Out((2, 4), I32), Out((2, 1), I32), Out((2, 1), I32)],
            error=(INVALID_TYPE, "int32"),
        ),
    ]
    return cases


def group_norm_cases():
    key = "aten::native_group_norm.out"
    cases = []
    for name, shape, g, affine in [
        ("4 groups", (2, 8, 3, 3), 4, True),
        ("1 group", (1, 4, 5), 1, True),
        ("per channel", (2, 3, 4), 3, False),
        ("no spatial", (3, 6), 2, True),
    ]:
        n, c = shape[:2]
        hxw = 1
        for v in shape[2:]:
            hxw *= v
        x = rnd(*shape, seed=95) * 2 + 1
        w, b = (rnd(c, seed=96), rnd(c, seed=97)) if affine else (None, None)
        args = [x, w, b, n, c, hxw, g, 1e-5, Out(shape), Out((n, g)), Out((n, g))]
        cases.append(Case("group_norm %s" % name, key, args, atol=1e-5, rtol=1e-4))
    x = rnd(2, 4, 3)
    cases += [
        Case(
            "group_norm error groups",
            key,
            [x, None, None, 2, 4, 3, 3, 1e-5, Out((2, 4, 3)), Out((2, 3)), Out((2, 3))],
            error=(INVALID_ARGUMENT, "divisible by group"),
        ),
        Case(
            "group_norm error shape",
            key,
            [x, None, None, 2, 4, 4, 2, 1e-5, Out((2, 4, 3)), Out((2, 2)), Out((2, 2))],
            error=(INVALID_ARGUMENT, "does not match"),
        ),
        Case(
            "group_norm error weight",
            key,
            [x, rnd(3), None, 2, 4, 3, 2, 1e-5, Out((2, 4, 3)), Out((2, 2)), Out((2, 2))],
            error=(INVALID_ARGUMENT, "weight must be [4]"),
        ),
    ]
    return cases


def cases():
    return conv_transposed_cases() + generated_cases() + norm_cases() + group_norm_cases()

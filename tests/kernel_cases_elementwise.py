"""Cases for the elementwise kernels: add, sub, mul, div, relu, tanh,
sigmoid, hardtanh, clamp."""

import torch

from mpy_et.errors import INVALID_ARGUMENT, INVALID_TYPE
from tests.kernel_cases import Case, Out

F32, F64, I32, I16, I64 = torch.float32, torch.float64, torch.int32, torch.int16, torch.int64
INF, NAN = float("inf"), float("nan")


def rnd(*sizes, dtype=F32, scale=1.0, seed=None):
    g = torch.Generator().manual_seed(seed if seed is not None else hash(sizes) % 1000 + int(scale))
    if dtype.is_floating_point:
        return (torch.randn(sizes, generator=g, dtype=torch.float64) * scale).to(dtype)
    return torch.randint(-50, 50, sizes, generator=g, dtype=dtype)


def nonzero(*sizes, dtype=F32, seed=None):
    x = rnd(*sizes, dtype=dtype, seed=seed)
    return torch.where(x == 0, torch.ones_like(x), x) if not dtype.is_floating_point else x.sign() * (x.abs() + 0.5)


_BROADCAST = [
    ((2, 3, 4), (2, 3, 4)),
    ((3, 1), (1, 4)),
    ((4,), (2, 3, 4)),
    ((2, 1, 4), (3, 1)),
    ((1,), (5,)),
    ((), (3,)),
    ((3,), ()),
    ((), ()),
    ((1, 1, 3), (1, 3)),
    ((2, 3, 4, 5), (1, 3, 1, 1)),
    ((1, 3, 1, 1), (2, 3, 4, 5)),
    ((2, 1, 3, 1), (1, 4, 1, 5)),
    ((0, 3), (3,)),
]


def _binary(op, key, alpha_args):
    cases = []
    for sa, sb in _BROADCAST:
        shape = torch.broadcast_shapes(sa, sb)
        a, b = rnd(*sa, seed=1), (nonzero if op == "div" else rnd)(*sb, seed=2)
        cases.append(Case("%s f32 %s %s" % (op, list(sa), list(sb)), key, [a, b] + alpha_args + [Out(shape)]))
    a, b = rnd(3, 5, dtype=F64, seed=3), rnd(3, 5, dtype=F64, seed=4)
    cases.append(Case("%s f64" % op, key, [a, b] + alpha_args + [Out((3, 5), F64)], atol=1e-12, rtol=1e-12))
    big = rnd(4, 4, scale=1e4, seed=5)
    cases.append(Case("%s f32 large values" % op, key, [big, nonzero(4, 4, seed=6) * 1e3] + alpha_args + [Out((4, 4))]))
    cases.append(
        Case("%s f32 + f64 -> f64" % op, key, [rnd(2, 3), rnd(2, 3, dtype=F64)] + alpha_args + [Out((2, 3), F64)], atol=1e-12, rtol=1e-12)
    )
    return cases


def add_sub_mul_cases():
    cases = _binary("add", "aten::add.out", [1])
    cases += [
        Case("add f32 alpha 2.5", "aten::add.out", [rnd(2, 3), rnd(2, 3, seed=7), 2.5, Out((2, 3))]),
        Case("add f32 alpha -1 broadcast", "aten::add.out", [rnd(2, 3), rnd(3, seed=7), -1, Out((2, 3))]),
        Case("add i32", "aten::add.out", [rnd(2, 3, dtype=I32), rnd(2, 3, dtype=I32, seed=8), 1, Out((2, 3), I32)], noalloc=True),
        Case(
            "add i32 broadcast",
            "aten::add.out",
            [rnd(2, 1, 4, dtype=I32), rnd(3, 1, dtype=I32, seed=9), 1, Out((2, 3, 4), I32)],
            noalloc=True,
        ),
        Case("add i32 alpha 3", "aten::add.out", [rnd(5, dtype=I32), rnd(5, dtype=I32, seed=9), 3, Out((5,), I32)], noalloc=True),
        Case("add i32 + f32 -> f32", "aten::add.out", [rnd(2, 3, dtype=I32), rnd(2, 3), 1, Out((2, 3))]),
        Case("add i16 + i32 -> i32", "aten::add.out", [rnd(4, dtype=I16), rnd(4, dtype=I32), 1, Out((4,), I32)]),
        Case(
            "add u8 + i8 -> i16",
            "aten::add.out",
            [torch.tensor([0, 7, 200], dtype=torch.uint8), torch.tensor([-5, 3, 50], dtype=torch.int8), 1, Out((3,), I16)],
        ),
        Case("add i32 -> i64 out", "aten::add.out", [rnd(4, dtype=I32), rnd(4, dtype=I32, seed=3), 1, Out((4,), I64)]),
        Case("add 0-dim f64 + f32 -> f32", "aten::add.out", [rnd(3), torch.tensor(2.5, dtype=F64), 1, Out((3,))]),
        Case("add inf nan", "aten::add.out", [torch.tensor([INF, -INF, NAN, 1.0]), torch.tensor([1.0, 2.0, 3.0, INF]), 1, Out((4,))]),
        Case("add.Scalar f32", "aten::add.Scalar_out", [rnd(2, 3), 2.5, 2, Out((2, 3))]),
        Case("add.Scalar f32 int", "aten::add.Scalar_out", [rnd(2, 3), 3, 1, Out((2, 3))]),
        Case("add.Scalar f32 rows", "aten::add.Scalar_out", [rnd(3, 5), 0.1, -2, Out((3, 5))]),
        Case("add.Scalar f32 scalar past float32", "aten::add.Scalar_out", [rnd(9), 1e39, 1, Out((9,))]),
        Case("add.Scalar i32", "aten::add.Scalar_out", [rnd(6, dtype=I32), 3, 2, Out((6,), I32)], noalloc=True),
        Case("add.Scalar i32 + float -> f32", "aten::add.Scalar_out", [rnd(6, dtype=I32), 0.5, 1, Out((6,))]),
        Case("add.Scalar 0-dim", "aten::add.Scalar_out", [torch.tensor(1.5), -4.0, 1, Out(())]),
    ]
    cases += _binary("sub", "aten::sub.out", [1])
    cases += [
        Case("sub f32 alpha 0.5", "aten::sub.out", [rnd(2, 3), rnd(2, 3, seed=7), 0.5, Out((2, 3))]),
        Case("sub i32", "aten::sub.out", [rnd(7, dtype=I32), rnd(7, dtype=I32, seed=8), 1, Out((7,), I32)], noalloc=True),
        Case("sub i32 alpha 2 broadcast", "aten::sub.out", [rnd(2, 3, dtype=I32), rnd(3, dtype=I32), 2, Out((2, 3), I32)], noalloc=True),
        Case("sub.Scalar f32", "aten::sub.Scalar_out", [rnd(2, 3), 1.25, 2, Out((2, 3))]),
        Case("sub.Scalar i32", "aten::sub.Scalar_out", [rnd(4, dtype=I32), 7, 1, Out((4,), I32)], noalloc=True),
    ]
    cases += _binary("mul", "aten::mul.out", [])
    cases += [
        Case("mul i32", "aten::mul.out", [rnd(2, 3, dtype=I32), rnd(2, 3, dtype=I32, seed=4), Out((2, 3), I32)], noalloc=True),
        Case("mul i32 broadcast", "aten::mul.out", [rnd(2, 1, dtype=I32), rnd(1, 5, dtype=I32, seed=4), Out((2, 5), I32)], noalloc=True),
        Case("mul.Scalar f32", "aten::mul.Scalar_out", [rnd(3, 2), -1.5, Out((3, 2))]),
        Case("mul.Scalar f32 rows", "aten::mul.Scalar_out", [rnd(4, 5), 0.1, Out((4, 5))]),
        Case(
            "mul.Scalar f32 nan inf",
            "aten::mul.Scalar_out",
            [torch.tensor([1.0, NAN, INF, -2.0, 0.5, -INF, 3.0, 4.0, 5.0]), -0.3, Out((9,))],
        ),
        Case("mul.Scalar i32", "aten::mul.Scalar_out", [rnd(3, 2, dtype=I32), 3, Out((3, 2), I32)], noalloc=True),
        Case("mul.Scalar i32 * float -> f32", "aten::mul.Scalar_out", [rnd(3, 2, dtype=I32), 0.25, Out((3, 2))]),
    ]
    return cases


def div_cases():
    cases = _binary("div", "aten::div.out", [])
    zeros = torch.tensor([1.0, -1.0, 0.0, 2.0, -3.0, NAN, INF])
    den = torch.tensor([0.0, 0.0, 0.0, -0.0, -0.0, 0.0, 0.0])
    cases += [
        Case("div by zero", "aten::div.out", [zeros, den, Out((7,))]),
        Case("div by zero broadcast", "aten::div.out", [zeros.reshape(7, 1), torch.tensor([0.0, 2.0]), Out((7, 2))]),
        Case(
            "div by zero mid-tensor", "aten::div.out", [torch.tensor([1.0, 2.0, 3.0, 4.0]), torch.tensor([1.0, 0.0, 2.0, -0.0]), Out((4,))]
        ),
        Case("div by zero mid-row", "aten::div.out", [rnd(2, 4), torch.tensor([1.0, 0.0, 2.0, -0.0]), Out((2, 4))]),
        Case("div i32 / i32 -> f32", "aten::div.out", [rnd(6, dtype=I32), nonzero(6, dtype=I32, seed=3), Out((6,))]),
        Case("div i32 by zero", "aten::div.out", [torch.tensor([3, -2, 0], dtype=I32), torch.tensor([0, 0, 0], dtype=I32), Out((3,))]),
        Case("div.Scalar f32", "aten::div.Scalar_out", [rnd(2, 3), 3.0, Out((2, 3))]),
        Case("div.Scalar i32 -> f32", "aten::div.Scalar_out", [rnd(2, 3, dtype=I32), 4, Out((2, 3))]),
        Case("div.Scalar by zero", "aten::div.Scalar_out", [zeros, 0.0, Out((7,))]),
        Case("div.Scalar by -0.0", "aten::div.Scalar_out", [zeros, -0.0, Out((7,))]),
    ]
    return cases


def unary_cases():
    ext = torch.tensor([-1e4, -100.0, -88.0, -20.0, -1.0, -0.0, 0.0, 0.5, 20.0, 88.0, 1e4, INF, -INF, NAN])
    cases = []
    for op in ("relu", "tanh", "sigmoid"):
        key = "aten::%s.out" % op
        cases += [
            Case("%s f32" % op, key, [rnd(3, 4), Out((3, 4))]),
            Case("%s f32 extremes" % op, key, [ext, Out(ext.shape)]),
            Case("%s f64" % op, key, [rnd(5, dtype=F64), Out((5,), F64)], atol=1e-12, rtol=1e-12),
            Case("%s 0-dim" % op, key, [torch.tensor(-0.75), Out(())]),
            Case("%s empty" % op, key, [torch.zeros(0, 3), Out((0, 3))]),
        ]
    cases += [
        Case("relu i32", "aten::relu.out", [rnd(4, 5, dtype=I32), Out((4, 5), I32)], noalloc=True),
        Case("relu i64", "aten::relu.out", [torch.tensor([-(2**40), 2**40, -1, 0], dtype=I64), Out((4,), I64)]),
        Case("tanh i32 -> f32", "aten::tanh.out", [rnd(4, dtype=I32) // 10, Out((4,))]),
        Case("sigmoid i32 -> f32", "aten::sigmoid.out", [rnd(4, dtype=I32) // 10, Out((4,))]),
        Case("hardtanh default", "aten::hardtanh.out", [rnd(3, 4, scale=2), -1, 1, Out((3, 4))]),
        Case("hardtanh relu6", "aten::hardtanh.out", [rnd(3, 4, scale=5), 0.0, 6.0, Out((3, 4))]),
        Case("hardtanh extremes", "aten::hardtanh.out", [ext, -1.0, 1.0, Out(ext.shape)]),
        Case("hardtanh i32", "aten::hardtanh.out", [rnd(8, dtype=I32), -10, 10, Out((8,), I32)], noalloc=True),
        Case("clamp both", "aten::clamp.out", [rnd(3, 4, scale=2), -0.5, 0.75, Out((3, 4))]),
        Case("clamp min only", "aten::clamp.out", [rnd(3, 4), 0.1, None, Out((3, 4))]),
        Case("clamp max only", "aten::clamp.out", [rnd(3, 4), None, -0.1, Out((3, 4))]),
        Case("clamp min > max", "aten::clamp.out", [rnd(3, 4), 1.0, -1.0, Out((3, 4))]),
        Case("clamp extremes", "aten::clamp.out", [ext, -3.0, 3.0, Out(ext.shape)]),
        Case("clamp i32", "aten::clamp.out", [rnd(8, dtype=I32), -5, 20, Out((8,), I32)], noalloc=True),
        Case("clamp i32 float bound -> f32", "aten::clamp.out", [rnd(8, dtype=I32), 2.5, None, Out((8,))]),
    ]
    return cases


def error_cases():
    a = rnd(2, 3)
    e = [
        ("add shapes do not broadcast", "aten::add.out", [rnd(3), rnd(4), 1, Out((4,))], INVALID_ARGUMENT, "do not broadcast"),
        ("add wrong out shape", "aten::add.out", [a, a, 1, Out((3, 2))], INVALID_ARGUMENT, "out is float32[3, 2]"),
        ("add float into int out", "aten::add.out", [a, a, 1, Out((2, 3), I32)], INVALID_TYPE, "cannot be stored"),
        (
            "add bool input",
            "aten::add.out",
            [torch.ones(3, dtype=torch.bool), torch.ones(3, dtype=torch.bool), 1, Out((3,), torch.bool)],
            INVALID_TYPE,
            "bool",
        ),
        ("add float alpha on ints", "aten::add.out", [rnd(3, dtype=I32), rnd(3, dtype=I32), 1.5, Out((3,), I32)], INVALID_TYPE, "alpha"),
        ("add alpha not a number", "aten::add.out", [a, a, "x", Out((2, 3))], INVALID_TYPE, "alpha"),
        ("add self not a tensor", "aten::add.out", [1.0, a, 1, Out((2, 3))], INVALID_TYPE, "must be a tensor"),
        ("add.Scalar wrong out shape", "aten::add.Scalar_out", [a, 1.0, 1, Out((3,))], INVALID_ARGUMENT, "result has shape"),
        (
            "add.Scalar float into int out",
            "aten::add.Scalar_out",
            [rnd(3, dtype=I32), 1.5, 1, Out((3,), I32)],
            INVALID_TYPE,
            "cannot be stored",
        ),
        ("add.Scalar other not a number", "aten::add.Scalar_out", [a, None, 1, Out((2, 3))], INVALID_TYPE, "scalar"),
        ("sub shapes do not broadcast", "aten::sub.out", [rnd(2, 3), rnd(2, 2), 1, Out((2, 3))], INVALID_ARGUMENT, "do not broadcast"),
        ("sub float alpha on ints", "aten::sub.out", [rnd(3, dtype=I32), rnd(3, dtype=I32), 0.5, Out((3,), I32)], INVALID_TYPE, "alpha"),
        ("sub.Scalar wrong out shape", "aten::sub.Scalar_out", [a, 1.0, 1, Out((2, 2))], INVALID_ARGUMENT, "result has shape"),
        ("mul wrong out shape", "aten::mul.out", [a, rnd(3), Out((2, 4))], INVALID_ARGUMENT, "result has shape"),
        (
            "mul.Scalar float into int out",
            "aten::mul.Scalar_out",
            [rnd(3, dtype=I32), 0.5, Out((3,), I32)],
            INVALID_TYPE,
            "cannot be stored",
        ),
        ("div ints into int out", "aten::div.out", [rnd(3, dtype=I32), rnd(3, dtype=I32), Out((3,), I32)], INVALID_TYPE, "true division"),
        ("div wrong out shape", "aten::div.out", [a, a, Out((6,))], INVALID_ARGUMENT, "result has shape"),
        ("div.Scalar ints into int out", "aten::div.Scalar_out", [rnd(3, dtype=I32), 2, Out((3,), I32)], INVALID_TYPE, "true division"),
        ("div.Scalar wrong out shape", "aten::div.Scalar_out", [a, 2.0, Out((3, 2))], INVALID_ARGUMENT, "result has shape"),
        ("relu dtype mismatch", "aten::relu.out", [a, Out((2, 3), I32)], INVALID_TYPE, "cannot be stored"),
        ("relu wrong out shape", "aten::relu.out", [a, Out((3, 2))], INVALID_ARGUMENT, "result has shape"),
        ("relu bool", "aten::relu.out", [torch.ones(3, dtype=torch.bool), Out((3,), torch.bool)], INVALID_TYPE, "bool"),
        ("tanh int out", "aten::tanh.out", [rnd(3, dtype=I32), Out((3,), I32)], INVALID_TYPE, "cannot be stored"),
        ("tanh wrong out shape", "aten::tanh.out", [a, Out((2,))], INVALID_ARGUMENT, "result has shape"),
        ("sigmoid int out", "aten::sigmoid.out", [a, Out((2, 3), I32)], INVALID_TYPE, "cannot be stored"),
        ("sigmoid wrong out shape", "aten::sigmoid.out", [a, Out((2, 3, 1))], INVALID_ARGUMENT, "result has shape"),
        ("hardtanh wrong out shape", "aten::hardtanh.out", [a, -1, 1, Out((3,))], INVALID_ARGUMENT, "result has shape"),
        ("hardtanh bound not a number", "aten::hardtanh.out", [a, "a", 1, Out((2, 3))], INVALID_TYPE, "scalar"),
        ("clamp no bounds", "aten::clamp.out", [a, None, None, Out((2, 3))], INVALID_ARGUMENT, "at least one"),
        (
            "clamp float bound into int out",
            "aten::clamp.out",
            [rnd(3, dtype=I32), 0.5, None, Out((3,), I32)],
            INVALID_TYPE,
            "cannot be stored",
        ),
        ("clamp wrong out shape", "aten::clamp.out", [a, 0, 1, Out((3, 3))], INVALID_ARGUMENT, "result has shape"),
    ]
    return [Case(n, op, args, error=(code, text)) for n, op, args, code, text in e]


def cases():
    return add_sub_mul_cases() + div_cases() + unary_cases() + error_cases()

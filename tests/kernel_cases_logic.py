"""Cases for the comparison, logical, bitwise and where kernels: bool
results, any input dtype, broadcasting, NaN, float32 rounding of scalars."""

import torch

from mpy_et.errors import INVALID_ARGUMENT, INVALID_TYPE
from tests.kernel_cases import Case, Out
from tests.kernel_cases_elementwise import _BROADCAST, F64, I32, I64, INF, NAN, rnd

BOOL, U8 = torch.bool, torch.uint8
CMP = ("eq", "ne", "lt", "le", "gt", "ge")
SPECIAL = torch.tensor([NAN, INF, -INF, 0.0, -0.0, 1.0, 0.1, -2.5])


def _ints(*sizes, seed=0):
    """Small ints, so that equal elements occur."""
    return torch.randint(-2, 3, sizes, generator=torch.Generator().manual_seed(seed), dtype=I32)


def compare_cases():
    cases = []
    for op in CMP:
        t, s = "aten::%s.Tensor_out" % op, "aten::%s.Scalar_out" % op
        for sa, sb in _BROADCAST[:4] + _BROADCAST[5:8] + _BROADCAST[-1:]:
            shape = torch.broadcast_shapes(sa, sb)
            a, b = _ints(*sa, seed=1).float(), _ints(*sb, seed=2).float()
            cases.append(Case("%s.Tensor f32 %s %s" % (op, list(sa), list(sb)), t, [a, b, Out(shape, BOOL)]))
        cases += [
            Case("%s.Tensor special" % op, t, [SPECIAL.reshape(8, 1), SPECIAL, Out((8, 8), BOOL)]),
            Case("%s.Tensor i32" % op, t, [_ints(3, 4, seed=3), _ints(3, 4, seed=4), Out((3, 4), BOOL)], noalloc=True),
            Case("%s.Tensor i32 broadcast" % op, t, [_ints(3, 1, seed=3), _ints(4, seed=4), Out((3, 4), BOOL)], noalloc=True),
            Case("%s.Tensor i32 f32" % op, t, [_ints(6, seed=5), _ints(6, seed=6) + 0.5, Out((6,), BOOL)]),
            Case(
                "%s.Tensor i64" % op,
                t,
                [torch.tensor([2**40, -1, 3], dtype=I64), torch.tensor([2**40, 2**41, -3], dtype=I64), Out((3,), BOOL)],
            ),
            Case(
                "%s.Tensor bool" % op,
                t,
                [torch.tensor([True, False, True, False]), torch.tensor([True, True, False, False]), Out((4,), BOOL)],
                noalloc=True,
            ),
            Case("%s.Tensor f64" % op, t, [SPECIAL.double(), SPECIAL.flip(0).double(), Out((8,), BOOL)]),
            Case("%s.Scalar f32" % op, s, [_ints(3, 4, seed=7).float(), 1, Out((3, 4), BOOL)]),
            Case("%s.Scalar f32 0.1 rounded" % op, s, [SPECIAL, 0.1, Out((8,), BOOL)]),
            Case("%s.Scalar f32 -inf" % op, s, [SPECIAL, -INF, Out((8,), BOOL)]),
            Case("%s.Scalar f32 nan" % op, s, [SPECIAL, NAN, Out((8,), BOOL)]),
            # 0.1 as float32 and as float64 differ by 1.5e-9: a gap CircuitPython's 30-bit floats cannot see
            Case("%s.Scalar f64" % op, s, [SPECIAL.double(), 1.0, Out((8,), BOOL)]),
            Case("%s.Scalar i32" % op, s, [_ints(2, 5, seed=8), 0, Out((2, 5), BOOL)], noalloc=True),
            Case("%s.Scalar i32 vs 0.5" % op, s, [_ints(2, 5, seed=8), 0.5, Out((2, 5), BOOL)]),
            Case("%s.Scalar bool" % op, s, [torch.tensor([True, False]), True, Out((2,), BOOL)]),
            Case("%s.Scalar 0-dim" % op, s, [torch.tensor(2.0), 2.0, Out((), BOOL)]),
            Case("%s.Scalar empty" % op, s, [torch.zeros(0, 2), 2.0, Out((0, 2), BOOL)]),
        ]
    return cases


def logical_cases():
    fa = torch.tensor([0.0, -0.0, 1.0, NAN, -2.0, 0.0])
    fb = torch.tensor([0.0, 3.0, 0.0, 1.0, INF, NAN])
    ba, bb = torch.tensor([True, False, True, False]), torch.tensor([True, True, False, False])
    cases = []
    for op in ("and", "or", "xor"):
        key = "aten::logical_%s.out" % op
        cases += [
            Case("logical_%s f32" % op, key, [fa, fb, Out((6,), BOOL)]),
            Case("logical_%s bool" % op, key, [ba, bb, Out((4,), BOOL)], noalloc=True),
            Case("logical_%s broadcast" % op, key, [ba.reshape(4, 1), _ints(3, seed=9), Out((4, 3), BOOL)], noalloc=True),
            Case(
                "logical_%s i64 f64" % op,
                key,
                [torch.tensor([0, 2**40, 0], dtype=I64), torch.tensor([0.0, 1.0, 2.0], dtype=F64), Out((3,), BOOL)],
            ),
        ]
        key, sk = "aten::bitwise_%s.Tensor_out" % op, "aten::bitwise_%s.Scalar_out" % op
        cases += [
            Case("bitwise_%s bool" % op, key, [ba, bb, Out((4,), BOOL)], noalloc=True),
            Case("bitwise_%s bool broadcast" % op, key, [ba.reshape(4, 1), bb[:3], Out((4, 3), BOOL)], noalloc=True),
            Case("bitwise_%s i32" % op, key, [rnd(2, 5, dtype=I32), rnd(2, 5, dtype=I32, seed=3), Out((2, 5), I32)], noalloc=True),
            Case(
                "bitwise_%s i32 extremes" % op,
                key,
                [torch.tensor([-(2**31), 2**31 - 1, -1], dtype=I32), torch.tensor([-1, -(2**31), 12345], dtype=I32), Out((3,), I32)],
            ),
            Case(
                "bitwise_%s u8 i32 -> i32" % op, key, [torch.tensor([255, 7], dtype=U8), torch.tensor([-1, 12], dtype=I32), Out((2,), I32)]
            ),
            Case("bitwise_%s.Scalar i32" % op, sk, [rnd(6, dtype=I32), 6, Out((6,), I32)], noalloc=True),
            Case("bitwise_%s.Scalar bool" % op, sk, [ba, True, Out((4,), BOOL)], noalloc=True),
        ]
    cases += [
        Case("logical_not f32", "aten::logical_not.out", [fa, Out((6,), BOOL)]),
        Case("logical_not bool", "aten::logical_not.out", [ba, Out((4,), BOOL)], noalloc=True),
        Case("logical_not i32 0-dim", "aten::logical_not.out", [torch.tensor(0, dtype=I32), Out((), BOOL)]),
        Case("bitwise_not bool", "aten::bitwise_not.out", [ba, Out((4,), BOOL)], noalloc=True),
        Case("bitwise_not i32", "aten::bitwise_not.out", [torch.tensor([0, -1, 5, -(2**31), 2**31 - 1], dtype=I32), Out((5,), I32)]),
        Case("bitwise_not i32 noalloc", "aten::bitwise_not.out", [rnd(7, dtype=I32), Out((7,), I32)], noalloc=True),
    ]
    return cases


def where_cases():
    key = "aten::where.self_out"
    c = torch.tensor([[True, False, True], [False, False, True]])
    return [
        Case("where f32", key, [c, rnd(2, 3, seed=1), rnd(2, 3, seed=2), Out((2, 3))]),
        Case("where broadcast cond", key, [c[0], rnd(2, 3, seed=1), rnd(2, 3, seed=2), Out((2, 3))]),
        Case("where 0-dim other", key, [c, rnd(2, 3, seed=1), torch.tensor(-INF), Out((2, 3))]),
        Case("where all broadcast", key, [c.reshape(2, 1, 3), rnd(4, 1, seed=3), torch.tensor(0.5), Out((2, 4, 3))]),
        Case("where row mask", key, [c.reshape(2, 3, 1), rnd(2, 3, 4, seed=7), rnd(2, 3, 4, seed=8), Out((2, 3, 4))]),
        Case("where NaN values", key, [c, torch.full((2, 3), NAN), rnd(3, seed=4), Out((2, 3))]),
        Case("where i32", key, [c, rnd(2, 3, dtype=I32), rnd(2, 3, dtype=I32, seed=5), Out((2, 3), I32)], noalloc=True),
        Case("where i32 broadcast", key, [c, rnd(3, dtype=I32), torch.tensor(7, dtype=I32), Out((2, 3), I32)], noalloc=True),
        Case("where i32 f32 -> f32", key, [c, rnd(2, 3, dtype=I32), rnd(2, 3), Out((2, 3))]),
        Case("where bool values", key, [c, c, ~c, Out((2, 3), BOOL)], noalloc=True),
        Case("where f64", key, [c, rnd(2, 3, dtype=F64), rnd(2, 3, dtype=F64, seed=6), Out((2, 3), F64)], atol=1e-12, rtol=1e-12),
        Case("where i64", key, [c[0], torch.tensor([2**40, 1, -(2**40)], dtype=I64), torch.tensor(3, dtype=I64), Out((3,), I64)]),
        Case("where empty", key, [torch.zeros(0, 3, dtype=BOOL), rnd(3), rnd(3), Out((0, 3))]),
        Case("where u8 condition", key, [torch.tensor([1, 0, 2], dtype=U8), rnd(3), rnd(3, seed=7), Out((3,))]),
    ]


def native_cases():
    """8+ elements: the Arm steps (native/bool_thumb) on the boards. eq / ne with
    every kind of constant (number, -inf, +-0, NaN, one float32 rounds),
    logical_not of bool, uint8, int32 and float32 (-0.0, NaN), where with the
    attention's row mask and a full condition."""
    x = torch.cat([SPECIAL, SPECIAL.flip(0), torch.tensor([-0.0, 0.1, 3.0, -INF])])  # 20 float32s
    xi = torch.cat([_ints(12, seed=9), torch.tensor([-(2**31), 2**31 - 1], dtype=I32)])
    cases = []
    for op in ("eq", "ne"):
        key = "aten::%s.Scalar_out" % op
        for c in (-INF, INF, 0.0, -0.0, NAN, 0.1, -2.5, 1):
            cases.append(Case("%s.Scalar f32 native %r" % (op, c), key, [x, c, Out(x.shape, BOOL)]))
        for c in (0, -2, 2**31 - 1):
            cases.append(Case("%s.Scalar i32 native %r" % (op, c), key, [xi, c, Out(xi.shape, BOOL)]))
    key = "aten::logical_not.out"
    cases += [
        Case("logical_not f32 native", key, [x, Out(x.shape, BOOL)]),
        Case("logical_not i32 native", key, [xi, Out(xi.shape, BOOL)]),
        Case("logical_not bool native", key, [x == 0.0, Out(x.shape, BOOL)], noalloc=True),
        Case("logical_not u8 native", key, [torch.tensor([0, 1, 2, 255, 0, 7, 0, 0, 9], dtype=U8), Out((9,), BOOL)], noalloc=True),
    ]
    key = "aten::where.self_out"
    rows = torch.tensor([True, False, False, True, True, False]).reshape(2, 3, 1)
    full = rnd(2, 3, 5, seed=10) > 0
    a, b = rnd(2, 3, 5, seed=11), rnd(2, 3, 5, seed=12)
    cases += [
        Case("where row mask native", key, [rows, a, b, Out((2, 3, 5))]),
        Case("where full condition native", key, [full, a, b, Out((2, 3, 5))]),
        Case("where i32 u8 condition native", key, [full.to(U8), a.to(I32), b.to(I32), Out((2, 3, 5), I32)], noalloc=True),
    ]
    key = "aten::full_like.out"
    cases += [
        Case("full_like f32 native", key, [a, -1.5, None, Out(a.shape)], noalloc=True),
        Case("full_like bool native", key, [rnd(3, 4), True, None, Out((3, 4), BOOL)], noalloc=True),
        Case("full_like u8 odd bytes", key, [rnd(3, 3), 7, None, Out((3, 3), U8)], noalloc=True),
        Case("full_like i16 native", key, [rnd(2, 4), -3, None, Out((2, 4), torch.int16)], noalloc=True),
    ]
    return cases


def error_cases():
    a, b = rnd(2, 3), rnd(4)
    e = []
    for op in CMP:
        e += [
            ("%s.Tensor shapes" % op, "aten::%s.Tensor_out" % op, [a, b, Out((2, 3), BOOL)], INVALID_ARGUMENT, "do not broadcast"),
            ("%s.Tensor float out" % op, "aten::%s.Tensor_out" % op, [a, a, Out((2, 3))], INVALID_TYPE, "must be bool"),
            ("%s.Scalar out shape" % op, "aten::%s.Scalar_out" % op, [a, 1.0, Out((3,), BOOL)], INVALID_ARGUMENT, "result has shape"),
            ("%s.Scalar not a number" % op, "aten::%s.Scalar_out" % op, [a, "x", Out((2, 3), BOOL)], INVALID_TYPE, "must be a number"),
        ]
    for op in ("and", "or", "xor"):
        e += [
            ("logical_%s shapes" % op, "aten::logical_%s.out" % op, [a, b, Out((2, 3), BOOL)], INVALID_ARGUMENT, "do not broadcast"),
            ("logical_%s int out" % op, "aten::logical_%s.out" % op, [a, a, Out((2, 3), I32)], INVALID_TYPE, "must be bool"),
            ("bitwise_%s float" % op, "aten::bitwise_%s.Tensor_out" % op, [a, a, Out((2, 3))], INVALID_TYPE, "bool and integer"),
            (
                "bitwise_%s shapes" % op,
                "aten::bitwise_%s.Tensor_out" % op,
                [rnd(3, dtype=I32), rnd(2, dtype=I32), Out((3,), I32)],
                INVALID_ARGUMENT,
                "do not broadcast",
            ),
            (
                "bitwise_%s.Scalar float scalar" % op,
                "aten::bitwise_%s.Scalar_out" % op,
                [rnd(3, dtype=I32), 1.5, Out((3,))],
                INVALID_TYPE,
                "bool and integer",
            ),
            (
                "bitwise_%s.Scalar out shape" % op,
                "aten::bitwise_%s.Scalar_out" % op,
                [rnd(3, dtype=I32), 1, Out((2,), I32)],
                INVALID_ARGUMENT,
                "result has shape",
            ),
        ]
    e += [
        ("logical_not out shape", "aten::logical_not.out", [a, Out((3,), BOOL)], INVALID_ARGUMENT, "result has shape"),
        ("logical_not not a tensor", "aten::logical_not.out", [1.0, Out((), BOOL)], INVALID_TYPE, "must be a tensor"),
        ("bitwise_not float", "aten::bitwise_not.out", [a, Out((2, 3))], INVALID_TYPE, "bool and integer"),
        ("where float condition", "aten::where.self_out", [a, a, a, Out((2, 3))], INVALID_TYPE, "condition is float32"),
        ("where shapes", "aten::where.self_out", [torch.ones(2, 3, dtype=BOOL), a, b, Out((2, 3))], INVALID_ARGUMENT, "do not broadcast"),
        ("where out shape", "aten::where.self_out", [torch.ones(3, dtype=BOOL), a, a, Out((3, 3))], INVALID_ARGUMENT, "result has shape"),
        (
            "where float into int out",
            "aten::where.self_out",
            [torch.ones(3, dtype=BOOL), a, a, Out((2, 3), I32)],
            INVALID_TYPE,
            "cannot be stored",
        ),
    ]
    return [Case(n, op, args, error=(code, text)) for n, op, args, code, text in e]


def cases():
    return compare_cases() + logical_cases() + where_cases() + native_cases() + error_cases()

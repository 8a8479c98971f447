"""Cases for the elementwise math kernels: exp/log/sqrt family, activations
(gelu, silu, hardswish, hardsigmoid, leaky_relu, elu), abs/neg/sign and
rounding, pow, div rounding modes, rsub, clamp with tensor bounds,
maximum/minimum, and integer wrap-around of add/sub/mul."""

import torch

from mpy_et.errors import INVALID_ARGUMENT, INVALID_TYPE
from tests.kernel_cases import Case, Out, expected
from tests.kernel_cases_elementwise import F64, I32, I64, INF, NAN, nonzero, rnd

I16, BOOL, U8 = torch.int16, torch.bool, torch.uint8
EXT = torch.tensor([-1e4, -100.0, -88.0, -20.0, -3.0, -1.0, -1e-7, -0.0, 0.0, 1e-7, 0.5, 3.0, 20.0, 88.0, 88.7, 89.0, 1e4, INF, -INF, NAN])
POS = torch.tensor([0.0, -0.0, 1e-30, 1e-7, 0.5, 1.0, 2.0, 1e4, 3e38, INF, NAN, -1.0, -INF, -1e-7])
I32_MIN, I32_MAX = -(2**31), 2**31 - 1
BIG32 = torch.tensor([I32_MAX, I32_MIN, 2**30, -(2**30), 123456789, -7, 0], dtype=I32)

# op: (key, extra args, inputs: "ext" | "pos", float only?)
UNARY = {
    "exp": ("aten::exp.out", [], "ext", False),
    "expm1": ("aten::expm1.out", [], "ext", False),
    "log": ("aten::log.out", [], "pos", False),
    "log1p": ("aten::log1p.out", [], "pos", False),
    "sqrt": ("aten::sqrt.out", [], "pos", False),
    "rsqrt": ("aten::rsqrt.out", [], "pos", False),
    "reciprocal": ("aten::reciprocal.out", [], "pos", False),
    "erf": ("aten::erf.out", [], "ext", False),
    "gelu": ("aten::gelu.out", ["none"], "ext", True),
    "gelu tanh": ("aten::gelu.out", ["tanh"], "ext", True),
    "silu": ("aten::silu.out", [], "ext", True),
    "hardswish": ("aten::hardswish.out", [], "ext", True),
    "hardsigmoid": ("aten::hardsigmoid.out", [], "ext", True),
    "leaky_relu": ("aten::leaky_relu.out", [0.01], "ext", True),
    "leaky_relu 0.2": ("aten::leaky_relu.out", [0.2], "ext", True),
    "elu": ("aten::elu.out", [1.0, 1, 1], "ext", True),
    "selu": ("aten::elu.out", [1.6732632423543772, 1.0507009873554805, 1], "ext", True),
    "celu 0.5": ("aten::elu.out", [0.5, 1, 2.0], "ext", True),
    "abs": ("aten::abs.out", [], "ext", False),
    "neg": ("aten::neg.out", [], "ext", False),
    "sign": ("aten::sign.out", [], "ext", False),
    "floor": ("aten::floor.out", [], "ext", False),
    "ceil": ("aten::ceil.out", [], "ext", False),
    "trunc": ("aten::trunc.out", [], "ext", False),
    "round": ("aten::round.out", [], "ext", False),
}
FLOAT_RESULT = ("exp", "expm1", "log", "log1p", "sqrt", "rsqrt", "reciprocal", "erf")


def _one_at_a_time(key, extra):
    """Reference for the edge values: torch on each element alone. Its
    vectorized loops (length >= 8, by CPU: AVX2 / AVX512) may give another
    answer on inf than its scalar path (gelu(inf): nan under AVX512, inf
    scalar and in exact arithmetic); the scalar path is the defined one."""

    def ref(x, *rest):
        values = [expected(Case("", key, [x[i : i + 1].clone(), *extra, Out((1,))]))[0] for i in range(x.numel())]
        return [torch.cat(values)]

    return ref


def unary_cases():
    cases = []
    halves = torch.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 1e7 + 0.5, 2.4999998])
    for name, (key, extra, domain, float_only) in UNARY.items():
        x = EXT if domain == "ext" else POS
        cases += [
            Case("%s f32" % name, key, [rnd(3, 4, scale=2.0, seed=21), *extra, Out((3, 4))]),
            Case("%s f32 edge values" % name, key, [x, *extra, Out(x.shape)], reference=_one_at_a_time(key, extra)),
            Case("%s f64" % name, key, [rnd(2, 3, dtype=F64, scale=3.0, seed=22), *extra, Out((2, 3), F64)], atol=1e-12, rtol=1e-12),
            Case("%s 0-dim" % name, key, [torch.tensor(0.625), *extra, Out(())]),
            Case("%s empty" % name, key, [torch.zeros(2, 0), *extra, Out((2, 0))]),
        ]
        if domain == "pos":
            cases.append(Case("%s f32 positive" % name, key, [rnd(5, seed=23).abs() + 0.01, *extra, Out((5,))]))
        if name in FLOAT_RESULT:
            cases.append(Case("%s i32 -> f32" % name, key, [torch.tensor([0, 1, 2, 5, -3], dtype=I32), *extra, Out((5,))]))
        elif not float_only:
            cases.append(Case("%s i32" % name, key, [rnd(2, 5, dtype=I32), *extra, Out((2, 5), I32)], noalloc=True))
    cases += [
        Case("round halves to even", "aten::round.out", [halves, Out(halves.shape)]),
        Case("abs i32 wraps", "aten::abs.out", [BIG32, Out((7,), I32)]),
        Case("neg i32 wraps", "aten::neg.out", [BIG32, Out((7,), I32)]),
        Case("neg i64", "aten::neg.out", [torch.tensor([2**40, -(2**62), 5], dtype=I64), Out((3,), I64)]),
        Case("abs i16", "aten::abs.out", [torch.tensor([-(2**15), -3, 4], dtype=I16), Out((3,), I16)]),
        Case("exp bool -> f32", "aten::exp.out", [torch.tensor([True, False]), Out((2,))]),
        Case("log f32 into f64 out", "aten::log.out", [POS, Out(POS.shape, F64)]),
    ]
    return cases


def _pow_cases():
    base = torch.tensor([-2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.0, 10.0, INF, -INF, NAN])
    expo = torch.tensor([-3.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, 200.0, INF, NAN])
    cases = [
        Case("pow.Tensor_Tensor f32", "aten::pow.Tensor_Tensor_out", [rnd(3, 4, seed=31).abs(), rnd(3, 4, seed=32), Out((3, 4))]),
        Case("pow.Tensor_Tensor f32 edge grid", "aten::pow.Tensor_Tensor_out", [base.reshape(12, 1), expo, Out((12, 12))]),
        Case(
            "pow.Tensor_Tensor broadcast", "aten::pow.Tensor_Tensor_out", [rnd(2, 1, 3, seed=33).abs(), rnd(4, 1, seed=34), Out((2, 4, 3))]
        ),
        Case(
            "pow.Tensor_Tensor i32",
            "aten::pow.Tensor_Tensor_out",
            [
                torch.tensor([2, -3, 5, 1, -1, -1, 2, 0, 7], dtype=I32),
                torch.tensor([3, 3, 0, -4, -3, -2, -1, 0, 2], dtype=I32),
                Out((9,), I32),
            ],
        ),
        Case(
            "pow.Tensor_Tensor i32 wraps",
            "aten::pow.Tensor_Tensor_out",
            [torch.tensor([2, 3, -2], dtype=I32), torch.tensor([31, 25, 33], dtype=I32), Out((3,), I32)],
        ),
        Case(
            "pow.Tensor_Tensor i32 ** f32",
            "aten::pow.Tensor_Tensor_out",
            [torch.tensor([2, 3, 4], dtype=I32), torch.tensor([0.5, -1.0, 1.5]), Out((3,))],
        ),
        Case(
            "pow.Tensor_Tensor f64", "aten::pow.Tensor_Tensor_out", [base.double(), expo.double(), Out((12,), F64)], atol=1e-12, rtol=1e-12
        ),
        Case("pow.Tensor_Tensor empty", "aten::pow.Tensor_Tensor_out", [torch.zeros(0, 2), torch.ones(2), Out((0, 2))]),
        Case("pow.Scalar 2", "aten::pow.Scalar_out", [2.0, rnd(3, 4, seed=35), Out((3, 4))]),
        Case("pow.Scalar edge", "aten::pow.Scalar_out", [-2.0, expo, Out((12,))]),
        Case("pow.Scalar 0 edge", "aten::pow.Scalar_out", [0.0, expo, Out((12,))]),
        Case("pow.Scalar int base i32", "aten::pow.Scalar_out", [3, torch.tensor([0, 1, 4, -1], dtype=I32), Out((4,), I32)]),
        Case("pow.Scalar int base f32", "aten::pow.Scalar_out", [3, torch.tensor([0.5, -1.0]), Out((2,))]),
    ]
    for e in (2, 0.5, 3, -1, -2.5, 1.7, 0):
        cases.append(Case("pow.Tensor_Scalar f32 ^ %s" % e, "aten::pow.Tensor_Scalar_out", [base, e, Out((12,))]))
    cases += [
        Case("pow.Tensor_Scalar f32 ^ 2 random", "aten::pow.Tensor_Scalar_out", [rnd(4, 5, seed=36, scale=10.0), 2, Out((4, 5))]),
        Case("pow.Tensor_Scalar f32 overflow", "aten::pow.Tensor_Scalar_out", [torch.tensor([1e20, -1e20, 1e-20]), 3, Out((3,))]),
        Case("pow.Tensor_Scalar i32 ^ 2", "aten::pow.Tensor_Scalar_out", [rnd(6, dtype=I32), 2, Out((6,), I32)], noalloc=True),
        Case("pow.Tensor_Scalar i32 ^ 3", "aten::pow.Tensor_Scalar_out", [rnd(6, dtype=I32), 3, Out((6,), I32)]),
        Case("pow.Tensor_Scalar i32 ^ 2 wraps", "aten::pow.Tensor_Scalar_out", [BIG32, 2, Out((7,), I32)]),
        Case("pow.Tensor_Scalar i32 ^ 0.5 -> f32", "aten::pow.Tensor_Scalar_out", [torch.tensor([4, 2, 0], dtype=I32), 0.5, Out((3,))]),
        Case("pow.Tensor_Scalar 0-dim", "aten::pow.Tensor_Scalar_out", [torch.tensor(1.5), 2, Out(())]),
    ]
    return cases


def _div_mode_cases():
    num = torch.tensor([7.0, -7.0, 7.5, -7.5, 0.0, -0.0, 1e-3, 5.0, INF, -INF, NAN, 3.0])
    den = torch.tensor([2.0, 2.0, -2.0, -2.0, 3.0, 3.0, -1.0, 0.0, 2.0, 0.0, 1.0, -0.0])
    inum = torch.tensor([7, -7, 7, -7, 0, 6, -6, 1, I32_MIN, 5], dtype=I32)  # I32_MIN // -1 traps in torch itself
    iden = torch.tensor([2, 2, -2, -2, 3, -3, 4, -4, 3, 1], dtype=I32)
    cases = []
    for mode in ("trunc", "floor"):
        key = "aten::div.out_mode"
        cases += [
            Case("div %s f32 edge" % mode, key, [num, den, mode, Out((12,))]),
            Case("div %s f32 random" % mode, key, [rnd(4, 5, seed=41, scale=10.0), nonzero(4, 5, seed=42), mode, Out((4, 5))]),
            Case("div %s broadcast" % mode, key, [rnd(2, 1, 3, seed=43, scale=5.0), nonzero(4, 1, seed=44), mode, Out((2, 4, 3))]),
            Case("div %s by zero broadcast" % mode, key, [num.reshape(12, 1), torch.tensor([0.0, 2.0]), mode, Out((12, 2))]),
            Case("div %s i32" % mode, key, [inum, iden, mode, Out((10,), I32)]),
            Case("div %s i32 noalloc" % mode, key, [inum[:8], iden[:8], mode, Out((8,), I32)], noalloc=True),
            Case("div %s i32 broadcast" % mode, key, [rnd(3, 1, dtype=I32), torch.tensor([3, -4], dtype=I32), mode, Out((3, 2), I32)]),
            Case("div %s i32 / f32" % mode, key, [inum, den[:10].abs() + 0.5, mode, Out((10,))]),
            Case("div %s f64" % mode, key, [num.double(), den.double(), mode, Out((12,), F64)]),
            Case("div.Scalar %s f32" % mode, "aten::div.Scalar_mode_out", [num, 0.7, mode, Out((12,))]),
            Case("div.Scalar %s f32 by -2" % mode, "aten::div.Scalar_mode_out", [rnd(7, seed=45, scale=9.0), -2, mode, Out((7,))]),
            Case("div.Scalar %s by zero" % mode, "aten::div.Scalar_mode_out", [num, 0.0, mode, Out((12,))]),
            Case("div.Scalar %s i32" % mode, "aten::div.Scalar_mode_out", [inum[:8], 3, mode, Out((8,), I32)], noalloc=True),
            Case("div.Scalar %s i32 min" % mode, "aten::div.Scalar_mode_out", [inum, 3, mode, Out((10,), I32)]),
            Case("div.Scalar %s i32 by -1" % mode, "aten::div.Scalar_mode_out", [inum[:8], -1, mode, Out((8,), I32)]),
        ]
    cases += [
        Case("div mode None", "aten::div.out_mode", [num, den, None, Out((12,))]),
        Case("div.Scalar mode None", "aten::div.Scalar_mode_out", [num, 4.0, None, Out((12,))]),
    ]
    return cases


def _mod_cases():
    num = torch.tensor([7.0, -7.0, 7.5, -7.5, 0.0, -0.0, 5.0, INF, 3.0, -1.0, NAN, 2.0])
    den = torch.tensor([2.0, 2.0, -2.0, -2.0, 3.0, 3.0, 0.0, 2.0, INF, INF, 1.0, NAN])
    inum = torch.tensor([7, -7, 7, -7, 0, 6, -6, 1, I32_MIN, 5], dtype=I32)
    iden = torch.tensor([2, 2, -2, -2, 3, -3, 4, -4, 3, 1], dtype=I32)
    cases = []
    for op in ("remainder", "fmod"):
        t, s = "aten::%s.Tensor_out" % op, "aten::%s.Scalar_out" % op
        cases += [
            Case("%s f32 edge" % op, t, [num, den, Out((12,))]),
            Case("%s f32 random" % op, t, [rnd(3, 4, seed=46, scale=10.0), nonzero(3, 4, seed=47), Out((3, 4))]),
            Case("%s broadcast" % op, t, [rnd(2, 1, 3, seed=48, scale=5.0), torch.tensor([[1.5], [-2.0], [0.0]]), Out((2, 3, 3))]),
            Case("%s i32" % op, t, [inum, iden, Out((10,), I32)]),
            Case("%s i32 broadcast" % op, t, [inum[:8].reshape(8, 1), torch.tensor([3, -5], dtype=I32), Out((8, 2), I32)], noalloc=True),
            Case("%s f64" % op, t, [num.double(), den.double(), Out((12,), F64)]),
            Case("%s.Scalar f32" % op, s, [num, 1.5, Out((12,))]),
            Case("%s.Scalar f32 negative" % op, s, [rnd(6, seed=49, scale=5.0), -0.7, Out((6,))]),
            Case("%s.Scalar f32 by zero" % op, s, [num, 0.0, Out((12,))]),
            Case("%s.Scalar i32" % op, s, [inum[:8], 3, Out((8,), I32)], noalloc=True),
            Case("%s.Scalar i32 negative" % op, s, [inum, -4, Out((10,), I32)]),
            Case("%s.Scalar i32 float -> f32" % op, s, [inum[:8], 2.5, Out((8,))]),
        ]
    return cases


def binary_cases():
    cases = _pow_cases() + _div_mode_cases() + _mod_cases()
    x = rnd(3, 4, seed=51)
    cases += [
        Case("rsub.Scalar f32", "aten::rsub.Scalar_out", [x, 1.0, 1, Out((3, 4))]),
        Case("rsub.Scalar f32 alpha 2", "aten::rsub.Scalar_out", [x, 0.5, 2, Out((3, 4))]),
        Case("rsub.Scalar i32", "aten::rsub.Scalar_out", [rnd(5, dtype=I32), 3, 1, Out((5,), I32)], noalloc=True),
        Case("rsub.Scalar i32 alpha 3", "aten::rsub.Scalar_out", [rnd(5, dtype=I32), 3, 3, Out((5,), I32)], noalloc=True),
        Case("rsub.Scalar i32 float -> f32", "aten::rsub.Scalar_out", [rnd(5, dtype=I32), 0.5, 1, Out((5,))]),
        Case("rsub.Scalar i32 wraps", "aten::rsub.Scalar_out", [BIG32, -2, 1, Out((7,), I32)]),
        Case("rsub.Scalar 0-dim", "aten::rsub.Scalar_out", [torch.tensor(2.0), 1, 1, Out(())]),
        Case("rsub.Tensor f32", "aten::rsub.Tensor_out", [x, rnd(3, 4, seed=52), 1, Out((3, 4))]),
        Case("rsub.Tensor broadcast alpha", "aten::rsub.Tensor_out", [rnd(4, seed=53), x, 2.5, Out((3, 4))]),
        Case("rsub.Tensor broadcast", "aten::rsub.Tensor_out", [rnd(3, 1, seed=53), rnd(4, seed=54), 1, Out((3, 4))]),
        Case("rsub.Tensor i32", "aten::rsub.Tensor_out", [rnd(6, dtype=I32), rnd(6, dtype=I32, seed=5), 1, Out((6,), I32)], noalloc=True),
    ]
    lo, hi = rnd(3, 4, seed=55) - 0.5, rnd(3, 4, seed=56) + 0.5
    nan_lo = torch.tensor([0.0, NAN, -1.0, 2.0])
    cases += [
        Case("clamp.Tensor both", "aten::clamp.Tensor_out", [x, lo, hi, Out((3, 4))]),
        Case("clamp.Tensor min only", "aten::clamp.Tensor_out", [x, lo, None, Out((3, 4))]),
        Case("clamp.Tensor max only", "aten::clamp.Tensor_out", [x, None, hi, Out((3, 4))]),
        Case(
            "clamp.Tensor broadcast",
            "aten::clamp.Tensor_out",
            [rnd(2, 1, 4, seed=57), rnd(3, 1, seed=58) - 0.3, rnd(4, seed=59).abs(), Out((2, 3, 4))],
        ),
        Case("clamp.Tensor broadcast min only", "aten::clamp.Tensor_out", [rnd(3, 1, seed=57), rnd(4, seed=58), None, Out((3, 4))]),
        Case("clamp.Tensor broadcast max only", "aten::clamp.Tensor_out", [rnd(4, seed=57), None, rnd(3, 1, seed=58), Out((3, 4))]),
        Case("clamp.Tensor min > max", "aten::clamp.Tensor_out", [x, hi, lo, Out((3, 4))]),
        Case(
            "clamp.Tensor NaN",
            "aten::clamp.Tensor_out",
            [torch.tensor([NAN, 1.0, 5.0, -5.0]), nan_lo, torch.tensor([1.0, 2.0, NAN, 3.0]), Out((4,))],
        ),
        Case(
            "clamp.Tensor NaN broadcast", "aten::clamp.Tensor_out", [torch.tensor([[NAN], [1.0]]), nan_lo, torch.tensor(1.5), Out((2, 4))]
        ),
        Case(
            "clamp.Tensor i32",
            "aten::clamp.Tensor_out",
            [rnd(6, dtype=I32), rnd(6, dtype=I32, seed=4) // 3, torch.tensor(20, dtype=I32), Out((6,), I32)],
            noalloc=True,
        ),
        Case("clamp.Tensor empty", "aten::clamp.Tensor_out", [torch.zeros(0, 4), rnd(4), None, Out((0, 4))]),
    ]
    for op in ("maximum", "minimum"):
        key = "aten::%s.out" % op
        cases += [
            Case("%s f32" % op, key, [x, rnd(3, 4, seed=60), Out((3, 4))]),
            Case("%s broadcast" % op, key, [rnd(2, 1, 3, seed=61), rnd(4, 1, seed=62), Out((2, 4, 3))]),
            Case("%s NaN" % op, key, [torch.tensor([NAN, 1.0, NAN, -INF]), torch.tensor([1.0, NAN, NAN, INF]), Out((4,))]),
            Case("%s i32" % op, key, [rnd(7, dtype=I32), rnd(7, dtype=I32, seed=3), Out((7,), I32)], noalloc=True),
            Case("%s i32 f32 -> f32" % op, key, [rnd(7, dtype=I32), rnd(7, seed=3) * 30, Out((7,))]),
            Case("%s bool" % op, key, [torch.tensor([True, False, False]), torch.tensor([False, False, True]), Out((3,), BOOL)]),
        ]
    return cases


def wrap_cases():
    """Integer results wrap to the dtype, as torch's (add/sub/mul and 0-dim)."""
    one = torch.tensor([1, -1, 2**30, -(2**30), 3, 0, -5], dtype=I32)
    return [
        Case("add i32 overflow wraps", "aten::add.out", [BIG32, one, 1, Out((7,), I32)]),
        Case("add i32 alpha overflow wraps", "aten::add.out", [BIG32, one, 5, Out((7,), I32)]),
        Case("add i32 broadcast overflow wraps", "aten::add.out", [BIG32.reshape(7, 1), one[:2], 1, Out((7, 2), I32)]),
        Case("add.Scalar i32 overflow wraps", "aten::add.Scalar_out", [BIG32, 2**30, 3, Out((7,), I32)]),
        Case("sub i32 overflow wraps", "aten::sub.out", [BIG32, one, 1, Out((7,), I32)]),
        Case("sub.Scalar i32 overflow wraps", "aten::sub.Scalar_out", [BIG32, 5, 1, Out((7,), I32)]),
        Case("mul i32 overflow wraps", "aten::mul.out", [BIG32, BIG32, Out((7,), I32)]),
        Case("mul.Scalar i32 overflow wraps", "aten::mul.Scalar_out", [BIG32, 65537, Out((7,), I32)]),
        Case(
            "mul i16 overflow wraps",
            "aten::mul.out",
            [torch.tensor([300, -300, 181], dtype=I16), torch.tensor([300, 200, 181], dtype=I16), Out((3,), I16)],
        ),
        Case(
            "add u8 overflow wraps",
            "aten::add.out",
            [torch.tensor([250, 3], dtype=U8), torch.tensor([10, 255], dtype=U8), 1, Out((2,), U8)],
        ),
        Case(
            "add i64",
            "aten::add.out",
            [torch.tensor([2**40, -5, 2**62], dtype=I64), torch.tensor([7, 2**50, 2**62], dtype=I64), 1, Out((3,), I64)],
        ),
        Case(
            "mul i64 overflow wraps",
            "aten::mul.out",
            [torch.tensor([2**40, -3], dtype=I64), torch.tensor([2**40, 2**62], dtype=I64), Out((2,), I64)],
        ),
        Case("add bool + f32", "aten::add.out", [torch.tensor([True, False, True]), rnd(3), 1, Out((3,))]),
        Case("mul f32 * bool", "aten::mul.out", [rnd(2, 3), torch.tensor([True, False, True]), Out((2, 3))]),
    ]


def error_cases():
    a = rnd(2, 3)
    ai = rnd(3, dtype=I32)
    e = [
        ("pow.Tensor_Tensor shapes", "aten::pow.Tensor_Tensor_out", [rnd(3), rnd(4), Out((4,))], INVALID_ARGUMENT, "do not broadcast"),
        ("pow.Tensor_Tensor float into int out", "aten::pow.Tensor_Tensor_out", [a, a, Out((2, 3), I32)], INVALID_TYPE, "cannot be stored"),
        (
            "pow.Tensor_Scalar negative int exponent",
            "aten::pow.Tensor_Scalar_out",
            [ai, -1, Out((3,), I32)],
            INVALID_ARGUMENT,
            "negative integer powers",
        ),
        ("pow.Tensor_Scalar wrong out shape", "aten::pow.Tensor_Scalar_out", [a, 2, Out((3,))], INVALID_ARGUMENT, "result has shape"),
        ("pow.Scalar float into int out", "aten::pow.Scalar_out", [2.5, ai, Out((3,), I32)], INVALID_TYPE, "cannot be stored"),
        (
            "pow.Tensor_Tensor bool",
            "aten::pow.Tensor_Tensor_out",
            [torch.ones(2, dtype=BOOL), torch.ones(2, dtype=BOOL), Out((2,), BOOL)],
            INVALID_TYPE,
            "bool",
        ),
        ("div mode bad", "aten::div.out_mode", [a, a, "round", Out((2, 3))], INVALID_ARGUMENT, "rounding_mode"),
        ("div mode shapes", "aten::div.out_mode", [rnd(3), rnd(2), "floor", Out((3,))], INVALID_ARGUMENT, "do not broadcast"),
        (
            "div.Scalar mode int by zero",
            "aten::div.Scalar_mode_out",
            [ai, 0, "floor", Out((3,), I32)],
            INVALID_ARGUMENT,
            "division by zero",
        ),
        (
            "div.Scalar mode float into int out",
            "aten::div.Scalar_mode_out",
            [ai, 1.5, "trunc", Out((3,), I32)],
            INVALID_TYPE,
            "cannot be stored",
        ),
        ("remainder shapes", "aten::remainder.Tensor_out", [rnd(3), rnd(2), Out((3,))], INVALID_ARGUMENT, "do not broadcast"),
        ("remainder.Scalar int by zero", "aten::remainder.Scalar_out", [ai, 0, Out((3,), I32)], INVALID_ARGUMENT, "by zero"),
        ("fmod float into int out", "aten::fmod.Tensor_out", [a, a, Out((2, 3), I32)], INVALID_TYPE, "cannot be stored"),
        ("fmod.Scalar int by zero", "aten::fmod.Scalar_out", [ai, 0, Out((3,), I32)], INVALID_ARGUMENT, "by zero"),
        ("rsub.Scalar wrong out shape", "aten::rsub.Scalar_out", [a, 1.0, 1, Out((3,))], INVALID_ARGUMENT, "result has shape"),
        ("rsub.Scalar float alpha on ints", "aten::rsub.Scalar_out", [ai, 1, 0.5, Out((3,), I32)], INVALID_TYPE, "alpha"),
        ("rsub.Tensor shapes", "aten::rsub.Tensor_out", [rnd(3), rnd(2), 1, Out((3,))], INVALID_ARGUMENT, "do not broadcast"),
        ("clamp.Tensor no bounds", "aten::clamp.Tensor_out", [a, None, None, Out((2, 3))], INVALID_ARGUMENT, "at least one"),
        ("clamp.Tensor shapes", "aten::clamp.Tensor_out", [a, rnd(4), None, Out((2, 3))], INVALID_ARGUMENT, "do not broadcast"),
        ("clamp.Tensor out shape", "aten::clamp.Tensor_out", [a, rnd(3), None, Out((3, 3))], INVALID_ARGUMENT, "result has shape"),
        ("maximum shapes", "aten::maximum.out", [rnd(3), rnd(2), Out((3,))], INVALID_ARGUMENT, "do not broadcast"),
        ("minimum float into int out", "aten::minimum.out", [a, a, Out((2, 3), I32)], INVALID_TYPE, "cannot be stored"),
        (
            "add bool + bool",
            "aten::add.out",
            [torch.ones(2, dtype=BOOL), torch.ones(2, dtype=BOOL), 1, Out((2,), BOOL)],
            INVALID_TYPE,
            "bool",
        ),
        ("gelu bad approximate", "aten::gelu.out", [a, "fast", Out((2, 3))], INVALID_ARGUMENT, "approximate"),
        ("elu alpha not a number", "aten::elu.out", [a, "x", 1, 1, Out((2, 3))], INVALID_TYPE, "alpha"),
        ("leaky_relu slope not a number", "aten::leaky_relu.out", [a, None, Out((2, 3))], INVALID_TYPE, "negative_slope"),
    ]
    for name, (key, extra, _, float_only) in UNARY.items():
        e.append(("%s wrong out shape" % name, key, [a, *extra, Out((3, 2))], INVALID_ARGUMENT, "result has shape"))
        if float_only:
            e.append(("%s int input" % name, key, [ai, *extra, Out((3,), I32)], INVALID_TYPE, "self is int32"))
        elif name in FLOAT_RESULT:
            e.append(("%s int out" % name, key, [ai, *extra, Out((3,), I32)], INVALID_TYPE, "cannot be stored"))
        else:
            e.append(("%s bool input" % name, key, [torch.ones(3, dtype=BOOL), *extra, Out((3,), BOOL)], INVALID_TYPE, "bool"))
    return [Case(n, op, args, error=(code, text)) for n, op, args, code, text in e]


def cases():
    return unary_cases() + binary_cases() + wrap_cases() + error_cases()

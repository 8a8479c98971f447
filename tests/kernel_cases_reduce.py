"""Cases for the reductions: amax/amin, argmax/argmin, max/min (with dim and
of the whole tensor), var, any, and sum/mean over dims and of bool/int
tensors."""

import torch

from mpy_et.errors import INVALID_ARGUMENT, INVALID_TYPE
from tests.kernel_cases import Case, Dtype, Out
from tests.kernel_cases_elementwise import F64, I32, I64, INF, NAN, rnd

BOOL = torch.bool
X = rnd(2, 3, 4, seed=71)
# (dims, keepdim) over X: last, first, middle, several, negative, every dim
DIMS = [([2], False), ([0], True), ([1], False), ([0, 2], False), ([-1, -3], True), ([], False), ([], True)]


def _shape(sizes, dims, keepdim):
    nd = len(sizes)
    red = {d % nd for d in dims} if dims else set(range(nd))
    return tuple(1 if d in red else s for d, s in enumerate(sizes) if keepdim or d not in red)


def _ties(*sizes, seed=0):
    return torch.randint(-2, 3, sizes, generator=torch.Generator().manual_seed(seed), dtype=I32)


def _pool_x():
    x = rnd(2, 3, 4, 6, seed=73)
    x[0, 1, 1, 3] = NAN
    x[1, 2, 2, 0] = NAN
    x[1, 2, 3, 1] = NAN
    return x.view(2, 3, 2, 2, 3, 2)


def extreme_cases():
    nan_rows = torch.tensor([[1.0, NAN, 3.0, NAN], [-INF, -1.0, -INF, 2.0], [NAN, 0.0, 1.0, 5.0]])
    cases = []
    for op in ("amax", "amin"):
        key = "aten::%s.out" % op
        for dims, keep in DIMS:
            cases.append(Case("%s f32 dims %s keepdim %s" % (op, dims, keep), key, [X, dims, keep, Out(_shape(X.shape, dims, keep))]))
        cases += [
            Case("%s NaN wins" % op, key, [nan_rows, [1], False, Out((3,))]),
            Case("%s NaN dim 0" % op, key, [nan_rows, [0], False, Out((4,))]),
            Case("%s i32" % op, key, [_ties(3, 5, seed=1), [1], False, Out((3,), I32)], noalloc=True),
            Case("%s i32 all" % op, key, [_ties(3, 5, seed=2), [], True, Out((1, 1), I32)], noalloc=True),
            Case("%s bool" % op, key, [torch.tensor([[True, False], [False, False]]), [1], False, Out((2,), BOOL)]),
            Case("%s i64" % op, key, [torch.tensor([2**40, -(2**41), 3], dtype=I64), [0], False, Out((), I64)]),
            Case("%s f64" % op, key, [X.double(), [1], True, Out((2, 1, 4), F64)]),
            Case("%s 0-dim" % op, key, [torch.tensor(1.5), [], False, Out(())]),
            Case("%s size-1 dim" % op, key, [rnd(3, 1, seed=72), [1], False, Out((3,))]),
            Case("%s empty kept dim" % op, key, [torch.zeros(0, 3), [1], False, Out((0,))]),
            # a 2x2 max pool as the pool pass lowers it: view [N, C, H/2, 2, W/2, 2], dims (3, 5);
            # the walk merges C and H/2 and steps W/2 by 2 (NaNs placed mid-window)
            Case("%s pool windows" % op, key, [_pool_x(), [3, 5], False, Out((2, 3, 2, 3))]),
        ]
    for op in ("argmax", "argmin"):
        key = "aten::%s.out" % op
        for dim, keep in ((2, False), (0, True), (-2, False), (None, False), (None, True)):
            shape = _shape(X.shape, [] if dim is None else [dim], keep)
            cases.append(Case("%s f32 dim %s keepdim %s" % (op, dim, keep), key, [X, dim, keep, Out(shape, I64)]))
        cases += [
            Case("%s ties first" % op, key, [_ties(4, 6, seed=3), 1, False, Out((4,), I64)], noalloc=True),
            Case("%s ties first dim 0" % op, key, [_ties(4, 6, seed=4), 0, True, Out((1, 6), I64)], noalloc=True),
            Case("%s NaN first" % op, key, [nan_rows, 1, False, Out((3,), I64)]),
            Case("%s NaN flattened" % op, key, [nan_rows, None, False, Out((), I64)]),
            Case("%s i64" % op, key, [torch.tensor([[2**40, 2**41, -1]], dtype=I64), 1, False, Out((1,), I64)]),
            Case("%s 0-dim" % op, key, [torch.tensor(3.0), None, False, Out((), I64)]),
        ]
    for op in ("max", "min"):
        key = "aten::%s.dim_%s" % (op, op)
        for dim, keep in ((2, False), (0, True), (-2, False)):
            shape = _shape(X.shape, [dim], keep)
            cases.append(Case("%s.dim f32 dim %s keepdim %s" % (op, dim, keep), key, [X, dim, keep, Out(shape), Out(shape, I64)]))
        cases += [
            Case("%s.dim NaN" % op, key, [nan_rows, 1, False, Out((3,)), Out((3,), I64)]),
            Case("%s.dim i32 ties" % op, key, [_ties(4, 5, seed=5), 1, True, Out((4, 1), I32), Out((4, 1), I64)], noalloc=True),
            Case("%s.dim 0-dim" % op, key, [torch.tensor(-1.0), 0, False, Out(()), Out((), I64)]),
            Case("%s.unary f32" % op, "aten::%s.unary_out" % op, [X, Out(())]),
            Case("%s.unary NaN" % op, "aten::%s.unary_out" % op, [nan_rows, Out(())]),
            Case("%s.unary i32" % op, "aten::%s.unary_out" % op, [_ties(7, seed=6), Out((), I32)], noalloc=True),
            Case("%s.unary inf" % op, "aten::%s.unary_out" % op, [torch.tensor([-INF, INF, 0.0]), Out(())]),
        ]
    return cases


def var_any_sum_cases():
    key = "aten::var.correction_out"
    cases = []
    for dims, keep in DIMS[:5]:
        cases.append(Case("var dims %s keepdim %s" % (dims, keep), key, [X, dims, None, keep, Out(_shape(X.shape, dims, keep))]))
    big = rnd(3, 5, seed=73) * 1e3 + 1e4
    cases += [
        Case("var all dims None", key, [X, None, None, False, Out(())]),
        Case("var correction 0", key, [X, [1], 0, False, Out((2, 4))]),
        Case("var correction 2.5", key, [X, [2], 2.5, True, Out((2, 3, 1))]),
        Case("var correction = N", key, [X, [1], 3, False, Out((2, 4))]),
        Case("var single element", key, [rnd(3, 1, seed=74), [1], None, False, Out((3,))]),
        Case("var single element correction 0", key, [rnd(3, 1, seed=74), [1], 0, False, Out((3,))]),
        Case("var large offset", key, [big, [1], None, False, Out((3,))], rtol=1e-4),
        Case("var NaN inf", key, [torch.tensor([[1.0, NAN, 2.0], [1.0, INF, 2.0], [1.0, 2.0, 4.0]]), [1], None, False, Out((3,))]),
        Case("var f64", key, [X.double(), [0, 1], None, False, Out((4,), F64)], atol=1e-12, rtol=1e-12),
        Case("var empty dim", key, [torch.zeros(2, 0), [1], None, False, Out((2,))]),
    ]
    f = torch.tensor([[0.0, 0.0, NAN], [0.0, -0.0, 0.0], [0.0, 2.0, 0.0]])
    b = torch.tensor([[False, False, True], [False, False, False]])
    cases += [
        Case("any dim 1", "aten::any.out", [f, 1, False, Out((3,), BOOL)]),
        Case("any dim 0 keepdim", "aten::any.out", [f, 0, True, Out((1, 3), BOOL)]),
        Case("any bool", "aten::any.out", [b, -1, False, Out((2,), BOOL)], noalloc=True),
        Case("any i32", "aten::any.out", [_ties(3, 4, seed=7) // 2, 1, False, Out((3,), BOOL)], noalloc=True),
        Case("any empty dim", "aten::any.out", [torch.zeros(2, 0), 1, False, Out((2,), BOOL)]),
        Case("any.dims", "aten::any.dims_out", [X > 1.0, [0, 2], False, Out((3,), BOOL)], noalloc=True),
        Case("any.dims None", "aten::any.dims_out", [b, None, True, Out((1, 1), BOOL)]),
        Case("any.dims [] reduces nothing", "aten::any.dims_out", [f, [], False, Out((3, 3), BOOL)]),
        Case("any.all", "aten::any.all_out", [b, Out((), BOOL)], noalloc=True),
        Case("any.all false", "aten::any.all_out", [torch.zeros(2, 3), Out((), BOOL)]),
        Case("any.all empty", "aten::any.all_out", [torch.zeros(0, dtype=BOOL), Out((), BOOL)]),
        Case("sum bool dims -> i64", "aten::sum.IntList_out", [X > 0, [1], False, None, Out((2, 4), I64)]),
        Case("sum i32 keepdim -> i64", "aten::sum.IntList_out", [_ties(3, 4, seed=8), [0], True, None, Out((1, 4), I64)]),
        Case(
            "sum i32 dtype i32 noalloc",
            "aten::sum.IntList_out",
            [_ties(3, 4, seed=8), [1], False, Dtype(I32), Out((3,), I32)],
            noalloc=True,
        ),
        Case("sum i64", "aten::sum.IntList_out", [torch.tensor([[2**40, 5], [-3, 2**41]], dtype=I64), [1], False, None, Out((2,), I64)]),
        Case("sum dims middle", "aten::sum.IntList_out", [X, [1], False, None, Out((2, 4))]),
        Case("sum dims negative keepdim", "aten::sum.IntList_out", [X, [-1, 0], True, None, Out((1, 3, 1))]),
        Case("mean dims middle keepdim", "aten::mean.out", [X, [1], True, None, Out((2, 1, 4))]),
        Case("mean dims first and last", "aten::mean.out", [X, [0, 2], False, None, Out((3,))]),
        Case("mean NaN inf", "aten::mean.out", [torch.tensor([[1.0, NAN], [INF, 2.0], [INF, -INF]]), [1], False, None, Out((3,))]),
    ]
    return cases


def error_cases():
    a = X
    e = [
        ("amax empty reduced dim", "aten::amax.out", [torch.zeros(2, 0), [1], False, Out((2,))], INVALID_ARGUMENT, "empty dim"),
        ("amax dim out of range", "aten::amax.out", [a, [3], False, Out((2, 3))], INVALID_ARGUMENT, "out of range"),
        ("amax dtype mismatch", "aten::amax.out", [a, [2], False, Out((2, 3), F64)], INVALID_TYPE, "dtype mismatch"),
        ("amin wrong out shape", "aten::amin.out", [a, [2], False, Out((2, 4))], INVALID_ARGUMENT, "result has shape"),
        ("amin dim twice", "aten::amin.out", [a, [1, -2], False, Out((2, 4))], INVALID_ARGUMENT, "twice"),
        ("argmax float out", "aten::argmax.out", [a, 1, False, Out((2, 4))], INVALID_TYPE, "must be int64"),
        ("argmax dim list", "aten::argmax.out", [a, [1, 2], False, Out((2,), I64)], INVALID_ARGUMENT, "int or None"),
        ("argmax bool", "aten::argmax.out", [a > 0, 1, False, Out((2, 4), I64)], INVALID_TYPE, "bool"),
        ("argmin empty reduced dim", "aten::argmin.out", [torch.zeros(2, 0), 1, False, Out((2,), I64)], INVALID_ARGUMENT, "empty dim"),
        ("argmin wrong out shape", "aten::argmin.out", [a, 0, True, Out((3, 4), I64)], INVALID_ARGUMENT, "result has shape"),
        ("max.dim indices int32", "aten::max.dim_max", [a, 1, False, Out((2, 4)), Out((2, 4), I32)], INVALID_TYPE, "must be int64"),
        ("max.dim indices shape", "aten::max.dim_max", [a, 1, False, Out((2, 4)), Out((2, 3), I64)], INVALID_ARGUMENT, "indices"),
        ("max.dim dim list", "aten::max.dim_max", [a, [1], False, Out((2, 4)), Out((2, 4), I64)], INVALID_ARGUMENT, "must be an int"),
        ("max.unary empty", "aten::max.unary_out", [torch.zeros(0), Out(())], INVALID_ARGUMENT, "empty"),
        ("min.dim values shape", "aten::min.dim_min", [a, 2, True, Out((2, 3)), Out((2, 3), I64)], INVALID_ARGUMENT, "result has shape"),
        ("min.unary out shape", "aten::min.unary_out", [a, Out((1,))], INVALID_ARGUMENT, "result has shape"),
        ("var int input", "aten::var.correction_out", [_ties(3, 4), [1], None, False, Out((3,), I32)], INVALID_TYPE, "int32"),
        ("var wrong out shape", "aten::var.correction_out", [a, [1], None, False, Out((2, 3))], INVALID_ARGUMENT, "result has shape"),
        ("var correction not a number", "aten::var.correction_out", [a, [1], "x", False, Out((2, 4))], INVALID_TYPE, "correction"),
        ("any float out", "aten::any.out", [a, 1, False, Out((2, 4))], INVALID_TYPE, "must be bool"),
        ("any dim list", "aten::any.out", [a, [1], False, Out((2, 4), BOOL)], INVALID_ARGUMENT, "must be an int"),
        ("any.dims wrong out shape", "aten::any.dims_out", [a, [1], False, Out((2, 3), BOOL)], INVALID_ARGUMENT, "result has shape"),
        ("any.all wrong out shape", "aten::any.all_out", [a, Out((1,), BOOL)], INVALID_ARGUMENT, "result has shape"),
        ("sum bool into bool out", "aten::sum.IntList_out", [a > 0, [1], False, None, Out((2, 4), BOOL)], INVALID_TYPE, "cannot be stored"),
    ]
    return [Case(n, op, args, error=(code, text)) for n, op, args, code, text in e]


def cases():
    return extreme_cases() + var_any_sum_cases() + error_cases()

"""Cases for the copy and reduction kernels: view_copy, clone, permute_copy,
cat, mean, sum."""

import math

import torch

from mpy_et.errors import INVALID_ARGUMENT, INVALID_TYPE, NOT_SUPPORTED
from tests.kernel_cases import Case, Dtype, Out
from tests.kernel_cases_elementwise import F32, F64, I32, I64, rnd


def _long(*sizes):
    return (torch.arange(math.prod(sizes), dtype=I64) * 3 - 7).reshape(sizes)


def copy_cases():
    x = rnd(2, 3, 4)
    c = [
        Case("view_copy f32", "aten::view_copy.out", [x, [4, 6], Out((4, 6))]),
        Case("view_copy -1", "aten::view_copy.out", [x, [-1, 4], Out((6, 4))]),
        Case("view_copy to 0-dim", "aten::view_copy.out", [rnd(1, 1), [], Out(())]),
        Case("view_copy i32", "aten::view_copy.out", [rnd(2, 6, dtype=I32), [3, -1], Out((3, 4), I32)], noalloc=True),
        Case("view_copy i64", "aten::view_copy.out", [_long(2, 3), [6], Out((6,), I64)], noalloc=True),
        Case("view_copy empty", "aten::view_copy.out", [torch.zeros(0, 3), [3, 0], Out((3, 0))]),
        Case("clone f32", "aten::clone.out", [x, None, Out(x.shape)]),
        Case("clone i32", "aten::clone.out", [rnd(5, dtype=I32), None, Out((5,), I32)], noalloc=True),
        Case("clone f64 0-dim", "aten::clone.out", [torch.tensor(2.5, dtype=F64), None, Out((), F64)]),
    ]
    for dims in ([1, 0, 2], [2, 0, 1], [0, 2, 1], [-1, -3, 1], [0, 1, 2]):
        c.append(Case("permute_copy f32 %s" % dims, "aten::permute_copy.out", [x, dims, Out(x.permute(dims).shape)]))
    nchw = rnd(2, 3, 4, 5)
    y = rnd(3, 1, 4, dtype=I32)
    c += [
        Case("permute_copy transpose", "aten::permute_copy.out", [rnd(5, 7), [1, 0], Out((7, 5))]),
        Case("permute_copy NCHW to NHWC", "aten::permute_copy.out", [nchw, [0, 2, 3, 1], Out((2, 4, 5, 3))]),
        Case("permute_copy size-1 dims", "aten::permute_copy.out", [rnd(1, 4, 1, 3), [2, 3, 0, 1], Out((1, 3, 1, 4))]),
        Case("permute_copy i32", "aten::permute_copy.out", [y, [2, 0, 1], Out((4, 3, 1), I32)], noalloc=True),
        Case("permute_copy i64", "aten::permute_copy.out", [_long(3, 4), [1, 0], Out((4, 3), I64)], noalloc=True),
        Case("permute_copy f64", "aten::permute_copy.out", [rnd(2, 3, dtype=F64), [1, 0], Out((3, 2), F64)], atol=0, rtol=0),
        Case("permute_copy 0-dim", "aten::permute_copy.out", [torch.tensor(1.5), [], Out(())]),
        Case("permute_copy empty", "aten::permute_copy.out", [torch.zeros(0, 2), [1, 0], Out((2, 0))]),
    ]
    return c


def cat_cases():
    a, b, c = rnd(2, 3, seed=51), rnd(2, 5, seed=52), rnd(4, 3, seed=53)
    tall = [rnd(40, 2, seed=54), rnd(40, 3, seed=55)]
    itall = [rnd(40, 2, dtype=I32), rnd(40, 1, dtype=I32, seed=3)]
    ltall = [_long(40, 2), _long(40, 1)]
    return [
        Case("cat dim 0", "aten::cat.out", [[a, c], 0, Out((6, 3))]),
        Case("cat dim 1", "aten::cat.out", [[a, b, a], 1, Out((2, 11))]),
        Case("cat dim -1 4-D", "aten::cat.out", [[rnd(1, 2, 3, 2), rnd(1, 2, 3, 4)], -1, Out((1, 2, 3, 6))]),
        Case("cat channels", "aten::cat.out", [[rnd(1, 2, 3, 3), rnd(1, 5, 3, 3)], 1, Out((1, 7, 3, 3))]),
        Case("cat single", "aten::cat.out", [[a], 0, Out((2, 3))]),
        Case("cat skips legacy empty", "aten::cat.out", [[torch.zeros(0), a, torch.zeros(0)], 1, Out((2, 3))]),
        Case("cat zero-size part", "aten::cat.out", [[a, torch.zeros(2, 0), b], 1, Out((2, 8))]),
        Case("cat i32", "aten::cat.out", [[rnd(2, 2, dtype=I32), rnd(3, 2, dtype=I32)], 0, Out((5, 2), I32)], noalloc=True),
        Case("cat many chunks f32", "aten::cat.out", [tall, 1, Out((40, 5))]),
        Case("cat many chunks i32", "aten::cat.out", [itall, 1, Out((40, 3), I32)], noalloc=True),
        Case("cat many chunks i64", "aten::cat.out", [ltall, -1, Out((40, 3), I64)], noalloc=True),
        Case("cat only legacy empty", "aten::cat.out", [[torch.zeros(0), torch.zeros(0)], 0, Out((0,))]),
        Case("cat f64", "aten::cat.out", [[a.double(), c.double()], 0, Out((6, 3), F64)], atol=0, rtol=0),
    ]


def reduce_cases():
    x = rnd(2, 3, 4, 5, seed=61)
    c = []
    for dims, keep in [([2, 3], True), ([-1], False), ([0, 2], False), (None, False), ([], True), ([1], True), ([0, 1, 2, 3], False)]:
        shape = torch.sum(x, dims if dims else list(range(4)), keep).shape
        c.append(Case("mean %s keepdim %s" % (dims, keep), "aten::mean.out", [x, dims, keep, None, Out(shape)]))
        c.append(Case("sum %s keepdim %s" % (dims, keep), "aten::sum.IntList_out", [x, dims, keep, None, Out(shape)]))
    xi = rnd(3, 4, dtype=I32)
    c += [
        Case("mean f32 -> f64 dtype", "aten::mean.out", [x, [1], False, Dtype(F64), Out((2, 4, 5), F64)], atol=1e-6),
        Case("mean i32 with dtype f32", "aten::mean.out", [xi, [1], False, Dtype(F32), Out((3,))]),
        Case("mean 0-dim", "aten::mean.out", [torch.tensor(2.0), [], False, None, Out(())]),
        Case("mean empty reduction", "aten::mean.out", [torch.zeros(2, 0), [1], False, None, Out((2,))]),
        Case("sum i32 -> i64", "aten::sum.IntList_out", [xi, [0], False, None, Out((4,), I64)]),
        Case("sum i32 dtype i32", "aten::sum.IntList_out", [xi, [1], True, Dtype(I32), Out((3, 1), I32)]),
        Case("sum f64", "aten::sum.IntList_out", [x.double(), [1, 3], False, None, Out((2, 4), F64)], atol=1e-12, rtol=1e-12),
        Case("sum empty reduction", "aten::sum.IntList_out", [torch.zeros(2, 0), [1], False, None, Out((2,))]),
    ]
    return c


def shape_errors():
    x = rnd(2, 3)
    e = [
        ("aten::view_copy.out", "view_copy two -1", [x, [-1, -1], Out((2, 3))], INVALID_ARGUMENT, "only one"),
        ("aten::view_copy.out", "view_copy numel", [x, [4, 2], Out((4, 2))], INVALID_ARGUMENT, "invalid for input of size 6"),
        ("aten::view_copy.out", "view_copy -1 does not divide", [x, [-1, 4], Out((2, 4))], INVALID_ARGUMENT, "invalid for input of size 6"),
        ("aten::view_copy.out", "view_copy size not ints", [x, [2.0, 3], Out((2, 3))], INVALID_ARGUMENT, "list of ints"),
        ("aten::view_copy.out", "view_copy negative size", [x, [-2, -3], Out((2, 3))], INVALID_ARGUMENT, "invalid size"),
        ("aten::view_copy.out", "view_copy out shape", [x, [3, 2], Out((6,))], INVALID_ARGUMENT, "result has shape [3, 2]"),
        ("aten::view_copy.out", "view_copy dtype", [x, [6], Out((6,), F64)], INVALID_TYPE, "dtype mismatch"),
        ("aten::clone.out", "clone channels_last", [x, 2, Out((2, 3))], NOT_SUPPORTED, "memory_format"),
        ("aten::clone.out", "clone shape", [x, None, Out((3, 2))], INVALID_ARGUMENT, "shapes differ"),
        ("aten::clone.out", "clone dtype", [x, None, Out((2, 3), I32)], INVALID_TYPE, "dtype mismatch"),
        ("aten::permute_copy.out", "permute_copy repeated dim", [x, [0, 0], Out((2, 2))], INVALID_ARGUMENT, "not a permutation"),
        ("aten::permute_copy.out", "permute_copy wrong length", [x, [0], Out((2,))], INVALID_ARGUMENT, "each of the 2 dims"),
        ("aten::permute_copy.out", "permute_copy dim out of range", [x, [0, 2], Out((2, 3))], INVALID_ARGUMENT, "out of range"),
        ("aten::permute_copy.out", "permute_copy out shape", [x, [1, 0], Out((2, 3))], INVALID_ARGUMENT, "result has shape [3, 2]"),
        ("aten::permute_copy.out", "permute_copy dtype", [x, [1, 0], Out((3, 2), F64)], INVALID_TYPE, "dtype mismatch"),
        ("aten::cat.out", "cat empty list", [[], 0, Out((0,))], INVALID_ARGUMENT, "non-empty list"),
        ("aten::cat.out", "cat dtype", [[x, x.double()], 0, Out((4, 3))], INVALID_TYPE, "tensors[1]"),
        ("aten::cat.out", "cat shape", [[x, rnd(2, 4)], 0, Out((4, 3))], INVALID_ARGUMENT, "differ outside dim 0"),
        ("aten::cat.out", "cat ndim", [[x, rnd(6)], 0, Out((8, 3))], INVALID_ARGUMENT, "differ outside dim"),
        ("aten::cat.out", "cat bad dim", [[x, x], 2, Out((2, 6))], INVALID_ARGUMENT, "out of range"),
        ("aten::cat.out", "cat 0-dim", [[torch.tensor(1.0), torch.tensor(2.0)], 0, Out((2,))], INVALID_ARGUMENT, "zero-dimensional"),
        ("aten::cat.out", "cat out shape", [[x, x], 1, Out((4, 3))], INVALID_ARGUMENT, "result has shape [2, 6]"),
        ("aten::cat.out", "cat not a tensor", [[x, 1.0], 0, Out((4, 3))], INVALID_TYPE, "tensors[1]"),
        ("aten::mean.out", "mean int input", [rnd(3, dtype=I32), [0], False, None, Out(())], INVALID_TYPE, "floating"),
        ("aten::mean.out", "mean out dtype", [x, [0], False, None, Out((3,), F64)], INVALID_TYPE, "expected float32"),
        ("aten::mean.out", "mean repeated dim", [x, [0, -2], False, None, Out(())], INVALID_ARGUMENT, "twice"),
        ("aten::mean.out", "mean bad dim", [x, [2], False, None, Out((2,))], INVALID_ARGUMENT, "out of range"),
        ("aten::mean.out", "mean out shape", [x, [1], True, None, Out((2,))], INVALID_ARGUMENT, "result has shape [2, 1]"),
        ("aten::mean.out", "mean keepdim not a bool", [x, [1], 1, None, Out((2,))], INVALID_TYPE, "keepdim"),
        ("aten::sum.IntList_out", "sum float into int", [x, [1], False, None, Out((2,), I32)], INVALID_TYPE, "cannot be stored"),
        ("aten::sum.IntList_out", "sum dtype vs out", [x, [1], False, Dtype(F64), Out((2,))], INVALID_TYPE, "differs from out"),
        (
            "aten::sum.IntList_out",
            "sum float into int out",
            [torch.ones(3), [0], False, None, Out((), I32)],
            INVALID_TYPE,
            "cannot be stored",
        ),
    ]
    return [Case(n, op, args, error=(code, text)) for op, n, args, code, text in e]


def cases():
    return copy_cases() + cat_cases() + reduce_cases() + shape_errors()

"""Cases for the resampling and indexing kernels added for real models:
adaptive pooling, nearest/bilinear upsampling, embedding, index,
index_select and gather."""

import torch

from mpy_et.errors import INVALID_ARGUMENT, INVALID_TYPE, NOT_SUPPORTED
from tests.kernel_cases import Case, Out
from tests.kernel_cases_elementwise import F64, I32, I64, INF, NAN, rnd

BN = "aten::_native_batch_norm_legit_no_training.out"
F = torch.nn.functional


def pool_upsample_cases():
    key = "aten::_adaptive_avg_pool2d.out"
    x = rnd(2, 3, 7, 6, seed=91)
    cases = []
    for size in [(1, 1), (2, 3), (3, 4), (7, 6), (5, 5), (14, 6)]:
        cases.append(Case("adaptive_avg_pool2d %s" % (size,), key, [x, list(size), Out((2, 3) + size)]))
    cases += [
        Case("adaptive_avg_pool2d 3-D input", key, [x[0], [2, 2], Out((3, 2, 2))]),
        Case("adaptive_avg_pool2d error out shape", key, [x, [2, 2], Out((2, 3, 2, 3))], error=(INVALID_ARGUMENT, "result has shape")),
        Case(
            "adaptive_avg_pool2d error int",
            key,
            [rnd(1, 1, 2, 2, dtype=I32), [1, 1], Out((1, 1, 1, 1), I32)],
            error=(INVALID_TYPE, "int32"),
        ),
        Case("adaptive_avg_pool2d error size 0", key, [x, [0, 1], Out((2, 3, 0, 1))], error=(INVALID_ARGUMENT, "must be >= 1")),
    ]
    amax = "aten::adaptive_max_pool2d.out"
    ties = torch.tensor([[[[1.0, 1.0, 0.0], [NAN, 2.0, 2.0], [3.0, -INF, 3.0]]]])
    for size, t in [((1, 1), x), ((2, 3), x), ((3, 4), x), ((7, 6), x), ((2, 2), ties)]:
        out = F.adaptive_max_pool2d(t, size).shape
        cases.append(Case("adaptive_max_pool2d %s %s" % (size, list(t.shape)), amax, [t, list(size), Out(out), Out(out, I64)]))
    cases += [
        Case("adaptive_max_pool2d 3-D", amax, [x[1], [3, 2], Out((3, 3, 2)), Out((3, 3, 2), I64)]),
        Case(
            "adaptive_max_pool2d error indices dtype",
            amax,
            [x, [1, 1], Out((2, 3, 1, 1)), Out((2, 3, 1, 1))],
            error=(INVALID_TYPE, "indices"),
        ),
        Case(
            "adaptive_max_pool2d error shape",
            amax,
            [x, [1, 1], Out((2, 3, 1, 2)), Out((2, 3, 1, 1), I64)],
            error=(INVALID_ARGUMENT, "result has shape"),
        ),
    ]
    x = rnd(1, 2, 3, 4, seed=92)
    near, near_v = "aten::upsample_nearest2d.out", "aten::upsample_nearest2d.vec_out"
    bil, bil_v = "aten::upsample_bilinear2d.out", "aten::upsample_bilinear2d.vec_out"
    for size in [(6, 8), (5, 7), (3, 4), (2, 3), (7, 13)]:
        cases.append(Case("upsample_nearest2d size %s" % (size,), near, [x, list(size), None, None, Out((1, 2) + size)], noalloc=True))
        for ac in (False, True):
            cases.append(
                Case("upsample_bilinear2d size %s align %s" % (size, ac), bil, [x, list(size), ac, None, None, Out((1, 2) + size)])
            )
    for sf in [(2.0, 2.0), (1.5, 3.0), (3.0, 1.0), (0.5, 0.5)]:
        oh, ow = int(3 * sf[0]), int(4 * sf[1])
        cases.append(Case("upsample_nearest2d.vec scale %s" % (sf,), near_v, [x, None, list(sf), Out((1, 2, oh, ow))], noalloc=True))
        for ac in (False, True):
            cases.append(Case("upsample_bilinear2d.vec scale %s align %s" % (sf, ac), bil_v, [x, None, ac, list(sf), Out((1, 2, oh, ow))]))
    cases += [
        Case("upsample_nearest2d.vec size", near_v, [x, [9, 5], None, Out((1, 2, 9, 5))], noalloc=True),
        Case(
            "upsample_nearest2d uint8",
            near_v,
            [torch.arange(12, dtype=torch.uint8).reshape(1, 1, 3, 4), None, [2.0, 2.0], Out((1, 1, 6, 8), torch.uint8)],
            noalloc=True,
        ),
        Case("upsample_nearest2d scales given", near, [x, [7, 9], 2.5, 2.5, Out((1, 2, 7, 9))], noalloc=True),
        Case("upsample_nearest2d f64", near_v, [x.double(), None, [2.0, 2.0], Out((1, 2, 6, 8), F64)], noalloc=True),
        Case("upsample_bilinear2d.vec size", bil_v, [x, [1, 1], False, None, Out((1, 2, 1, 1))]),
        Case("upsample_bilinear2d scales given", bil, [x, [7, 9], False, 2.5, 2.5, Out((1, 2, 7, 9))]),
        Case("upsample_bilinear2d f64", bil_v, [x.double(), None, True, [2.0, 2.0], Out((1, 2, 6, 8), F64)], atol=1e-12, rtol=1e-12),
        Case("upsample_nearest2d error 3-D", near, [x[0], [6, 8], None, None, Out((2, 6, 8))], error=(INVALID_ARGUMENT, "4-D")),
        Case(
            "upsample_nearest2d error out shape",
            near,
            [x, [6, 8], None, None, Out((1, 2, 6, 7))],
            error=(INVALID_ARGUMENT, "result has shape"),
        ),
        Case(
            "upsample_nearest2d.vec error both", near_v, [x, [6, 8], [2.0, 2.0], Out((1, 2, 6, 8))], error=(INVALID_ARGUMENT, "exactly one")
        ),
        Case(
            "upsample_bilinear2d error int",
            bil,
            [rnd(1, 1, 2, 2, dtype=I32), [4, 4], False, None, None, Out((1, 1, 4, 4), I32)],
            error=(INVALID_TYPE, "int32"),
        ),
        Case(
            "upsample_bilinear2d.vec error scale",
            bil_v,
            [x, None, False, [0.0, 2.0], Out((1, 2, 0, 8))],
            error=(INVALID_ARGUMENT, "positive"),
        ),
        Case(
            "upsample_bilinear2d.vec error align not bool",
            bil_v,
            [x, None, 1, [2.0, 2.0], Out((1, 2, 6, 8))],
            error=(INVALID_TYPE, "align_corners"),
        ),
    ]
    return cases


def index_cases():
    w = rnd(10, 4, seed=93)
    ids = torch.tensor([[1, 0, 9], [3, 3, 5]])
    cases = [
        Case("embedding i64 indices", "aten::embedding.out", [w, ids, -1, False, False, Out((2, 3, 4))], noalloc=True),
        Case("embedding i32 indices", "aten::embedding.out", [w, ids.int(), -1, False, False, Out((2, 3, 4))], noalloc=True),
        Case("embedding 0-dim index", "aten::embedding.out", [w, torch.tensor(7), 2, False, False, Out((4,))], noalloc=True),
        Case(
            "embedding i32 table",
            "aten::embedding.out",
            [rnd(5, 3, dtype=I32), torch.tensor([4, 0]), -1, False, False, Out((2, 3), I32)],
            noalloc=True,
        ),
        Case("embedding f64 table", "aten::embedding.out", [w.double(), ids, -1, False, False, Out((2, 3, 4), F64)], noalloc=True),
        Case("embedding no indices", "aten::embedding.out", [w, torch.zeros(0, dtype=I64), -1, False, False, Out((0, 4))]),
        Case(
            "embedding error float indices",
            "aten::embedding.out",
            [w, ids.float(), -1, False, False, Out((2, 3, 4))],
            error=(INVALID_TYPE, "indices"),
        ),
        Case(
            "embedding error 1-D weight",
            "aten::embedding.out",
            [rnd(10), ids, -1, False, False, Out((2, 3))],
            error=(INVALID_ARGUMENT, "must have 2 dims"),
        ),
        Case(
            "embedding error out shape",
            "aten::embedding.out",
            [w, ids, -1, False, False, Out((2, 3, 5))],
            error=(INVALID_ARGUMENT, "result has shape [2, 3, 4]"),
        ),
    ]
    x = rnd(3, 4, 5, seed=94)
    for dim, idx in [(0, [2, 0]), (1, [3, 3, 0, 1, 2]), (2, [4]), (-1, [1, 0]), (1, [])]:
        t = torch.tensor(idx, dtype=I64)
        out = torch.index_select(x, dim, t).shape
        cases.append(Case("index_select dim %d %s" % (dim, idx), "aten::index_select.out", [x, dim, t, Out(out)], noalloc=bool(idx)))
    cases += [
        Case(
            "index_select i32 index bool self",
            "aten::index_select.out",
            [x > 0, 0, torch.tensor([1], dtype=I32), Out((1, 4, 5), torch.bool)],
            noalloc=True,
        ),
        Case("index_select 0-dim index", "aten::index_select.out", [x, 1, torch.tensor(2), Out((3, 1, 5))], noalloc=True),
        Case(
            "index_select error 2-D index",
            "aten::index_select.out",
            [x, 0, torch.zeros(1, 1, dtype=I64), Out((1, 4, 5))],
            error=(INVALID_ARGUMENT, "0-D or 1-D"),
        ),
        Case(
            "index_select error float index",
            "aten::index_select.out",
            [x, 0, torch.zeros(1), Out((1, 4, 5))],
            error=(INVALID_TYPE, "index"),
        ),
    ]
    for dim, shape in [(0, (2, 4, 5)), (1, (3, 2, 5)), (2, (3, 4, 7)), (1, (2, 3, 2))]:
        g = torch.Generator().manual_seed(dim)
        idx = torch.randint(0, x.shape[dim], shape, generator=g)
        cases.append(Case("gather dim %d %s" % (dim, shape), "aten::gather.out", [x, dim, idx, False, Out(shape)], noalloc=True))
    cases += [
        Case(
            "gather i32 index f64",
            "aten::gather.out",
            [x.double(), -1, torch.tensor([[[0, 4]]], dtype=I32), False, Out((1, 1, 2), F64)],
            noalloc=True,
        ),
        Case(
            "gather error dims",
            "aten::gather.out",
            [x, 0, torch.zeros(2, 2, dtype=I64), False, Out((2, 2))],
            error=(INVALID_ARGUMENT, "as many dims"),
        ),
        Case(
            "gather error larger index",
            "aten::gather.out",
            [x, 0, torch.zeros(1, 5, 5, dtype=I64), False, Out((1, 5, 5))],
            error=(INVALID_ARGUMENT, "larger than self"),
        ),
    ]
    i0, i1 = torch.tensor([2, 0, 1]), torch.tensor([[1], [3]])
    for name, idx in [
        ("first dim", [i0]),
        ("second dim", [None, torch.tensor([3, 0])]),
        ("two broadcast dims", [None, i1, torch.tensor([4, 0, 2])]),
        ("negative", [torch.tensor([-1, 0])]),
        ("2-D index last dim", [None, None, torch.tensor([[0, 1], [4, 4]])]),
        ("two leading dims", [i0, torch.tensor([0, 1, 3])]),
    ]:
        out = x[tuple(slice(None) if t is None else t for t in idx)].shape
        cases.append(Case("index %s" % name, "aten::index.Tensor_out", [x, idx, Out(out)], noalloc=True))
    cases += [
        Case(
            "index i32 self i32 indices",
            "aten::index.Tensor_out",
            [rnd(4, 3, dtype=I32), [torch.tensor([3, 1], dtype=I32)], Out((2, 3), I32)],
            noalloc=True,
        ),
        Case(
            "index error bool mask",
            "aten::index.Tensor_out",
            [x, [torch.tensor([True, False, True])], Out((2, 4, 5))],
            error=(NOT_SUPPORTED, "boolean mask"),
        ),
        Case(
            "index error not adjacent",
            "aten::index.Tensor_out",
            [x, [i0, None, torch.tensor([0, 1, 2])], Out((3, 4))],
            error=(NOT_SUPPORTED, "not adjacent"),
        ),
        Case("index error no index", "aten::index.Tensor_out", [x, [None], Out((3, 4, 5))], error=(INVALID_ARGUMENT, "at least one")),
        Case(
            "index error broadcast",
            "aten::index.Tensor_out",
            [x, [torch.tensor([0, 1]), torch.tensor([0, 1, 2])], Out((3, 5))],
            error=(INVALID_ARGUMENT, "do not broadcast"),
        ),
    ]
    return cases


def index_put_cases():
    key = "aten::index_put.out"
    x = rnd(3, 4, 5, seed=98)
    cases = []
    for name, idx, vshape in [
        ("first dim scalar value", [torch.tensor([2, 0])], ()),
        ("first dim rows", [torch.tensor([1])], (1, 4, 5)),
        ("second dim broadcast value", [None, torch.tensor([3, 0])], (5,)),
        ("two broadcast dims", [None, torch.tensor([[1], [3]]), torch.tensor([4, 0, 2])], (3, 2, 3)),
        ("negative", [torch.tensor([-1])], (4, 1)),
    ]:
        v = rnd(*vshape, seed=99)
        for acc in (False, True):
            cases.append(Case("index_put %s%s" % (name, " accumulate" if acc else ""), key, [x, idx, v, acc, Out(x.shape)]))
    cases += [
        Case("index_put repeated index accumulate", key, [x, [torch.tensor([1, 1, 2])], rnd(3, 4, 5, seed=3), True, Out(x.shape)]),
        Case(
            "index_put i64",
            key,
            [torch.arange(6).reshape(2, 3), [None, torch.tensor([2])], torch.tensor([7]), False, Out((2, 3), I64)],
            noalloc=True,
        ),
        Case(
            "index_put i32 accumulate",
            key,
            [rnd(4, dtype=I32), [torch.tensor([0, 3], dtype=I32)], rnd(2, dtype=I32), True, Out((4,), I32)],
            noalloc=True,
        ),
        Case(
            "index_put error values shape",
            key,
            [x, [torch.tensor([0])], rnd(2, 5), False, Out(x.shape)],
            error=(INVALID_ARGUMENT, "broadcast"),
        ),
        Case(
            "index_put error dtype",
            key,
            [x, [torch.tensor([0])], rnd(5, dtype=I32), False, Out(x.shape)],
            error=(INVALID_TYPE, "dtype mismatch"),
        ),
        Case(
            "index_put error accumulate i64",
            key,
            [torch.arange(3), [torch.tensor([0])], torch.tensor([1]), True, Out((3,), I64)],
            error=(INVALID_TYPE, "int64"),
        ),
        Case(
            "index_put error mask",
            key,
            [x, [torch.tensor([True, False, True])], rnd(5), False, Out(x.shape)],
            error=(NOT_SUPPORTED, "boolean mask"),
        ),
    ]
    return cases


def special_values():
    """NaN and inf travel through the copies and the layers as torch's do."""
    x = torch.tensor([[[[1.0, NAN], [INF, -INF]]]])
    return [
        Case("upsample_nearest2d nan inf", "aten::upsample_nearest2d.vec_out", [x, None, [2.0, 2.0], Out((1, 1, 4, 4))], noalloc=True),
        Case("adaptive_avg_pool2d nan", "aten::_adaptive_avg_pool2d.out", [x, [1, 2], Out((1, 1, 1, 2))]),
        Case("batch_norm inf", BN, [x, None, None, torch.zeros(1), torch.ones(1), 0.1, 1e-5, Out((1, 1, 2, 2)), Out((0,)), Out((0,))]),
    ]


def cases():
    return pool_upsample_cases() + index_cases() + index_put_cases() + special_values()

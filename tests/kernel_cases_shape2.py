"""Cases for the shape and copy kernels added for real models: slice,
select, expand, transpose, t, (un)squeeze, split, unbind, stack, alias,
copy, the dtype conversions, constant padding, fills and arange.

Shape kernels move raw bytes, so their float cases run under heap_lock too.
"""

import math

import torch

from mpy_et.errors import INVALID_ARGUMENT, INVALID_TYPE, NOT_SUPPORTED
from tests.kernel_cases import Case, Out
from tests.kernel_cases_elementwise import F32, F64, I32, I64, INF, NAN, rnd

BOOL, U8, I8, I16 = torch.bool, torch.uint8, torch.int8, torch.int16


def _long(*sizes):
    return (torch.arange(math.prod(sizes), dtype=I64) * 3 - 7).reshape(sizes)


def _bools(*sizes):
    return rnd(*sizes, dtype=I32) > 0


def _x(dtype, *sizes):
    if dtype == I64:
        return _long(*sizes)
    if dtype == BOOL:
        return _bools(*sizes)
    return rnd(*sizes, dtype=dtype)


_DTYPES = (F32, I32, I64, BOOL, F64)


def _name(dtype):
    return str(dtype).split(".")[-1]


def slice_select_cases():
    c = []
    x = rnd(3, 4, 5)
    # (dim, start, end, step)
    for dim, a, e, s in [
        (0, 1, 3, 1),
        (1, 0, 4, 2),
        (2, -3, None, 1),
        (2, None, -1, 2),
        (-1, 1, 100, 3),
        (1, 3, 1, 1),
        (0, -100, 2, 1),
        (2, 4, 5, 1),
    ]:
        out = x[(slice(None),) * (dim % 3) + (slice(a, e, s),)]
        c.append(
            Case(
                "slice_copy f32 dim %d %s:%s:%d" % (dim, a, e, s),
                "aten::slice_copy.Tensor_out",
                [x, dim, a, e, s, Out(out.shape)],
                noalloc=out.numel() > 0,
            )
        )
    for dt in _DTYPES:
        t = _x(dt, 4, 6)
        c.append(Case("slice_copy %s" % _name(dt), "aten::slice_copy.Tensor_out", [t, 1, 1, 5, 2, Out((4, 2), dt)], noalloc=True))
    for dim, a, e, st, xs in [
        (1, 0, 2, 1, (3, 4)),
        (1, 1, None, 2, (3, 5)),
        (0, -2, None, 1, (4, 2)),
        (-1, 3, 3, 1, (2, 4)),
        (0, 0, 100, 1, (2, 3)),
    ]:
        t = rnd(*xs)
        piece = t[(slice(None),) * (dim % 2) + (slice(a, e, st),)]
        src = rnd(*piece.shape, seed=7)
        args = [t, src, dim, a, e, st, Out(xs)]
        c.append(Case("slice_scatter dim %d %s:%s:%d" % (dim, a, e, st), "aten::slice_scatter.out", args, noalloc=True))
    c.append(Case("slice_scatter i64", "aten::slice_scatter.out", [_long(3, 4), _long(3, 2), 1, 2, 4, 1, Out((3, 4), I64)], noalloc=True))
    tall = rnd(70, 3)  # many rows: the element loop instead of byte ranges
    c.append(Case("slice_copy many rows", "aten::slice_copy.Tensor_out", [tall, 1, 1, 3, 1, Out((70, 2))], noalloc=True))
    c.append(Case("slice_copy many rows i64", "aten::slice_copy.Tensor_out", [_long(70, 3), 1, 0, 1, 1, Out((70, 1), I64)], noalloc=True))
    c.append(Case("slice_copy size-0 dim", "aten::slice_copy.Tensor_out", [torch.zeros(0, 3), 1, 0, 2, 1, Out((0, 2))]))
    for dim, i in [(0, 2), (1, -1), (2, 0), (-1, 4)]:
        out = x.select(dim, i)
        c.append(Case("select_copy f32 dim %d index %d" % (dim, i), "aten::select_copy.int_out", [x, dim, i, Out(out.shape)], noalloc=True))
    for dt in _DTYPES:
        c.append(Case("select_copy %s" % _name(dt), "aten::select_copy.int_out", [_x(dt, 3, 2), 1, 1, Out((3,), dt)], noalloc=True))
    c.append(Case("select_copy 1-D to 0-dim", "aten::select_copy.int_out", [rnd(5), 0, 3, Out(())]))
    return c


def expand_transpose_cases():
    c = []
    for src, size in [((3, 1), [3, 4]), ((1,), [2, 3]), ((2, 1, 3), [4, 2, 5, 3]), ((3,), [-1]), ((1, 1), [2, -1, 3]), ((), [2, 2])]:
        x = rnd(*src)
        out = x.expand(size)
        c.append(Case("expand_copy %s to %s" % (list(src), size), "aten::expand_copy.out", [x, size, False, Out(out.shape)], noalloc=True))
    for dt in _DTYPES:
        c.append(Case("expand_copy %s" % _name(dt), "aten::expand_copy.out", [_x(dt, 2, 1), [2, 3], False, Out((2, 3), dt)], noalloc=True))
    c.append(Case("expand_copy to size 0", "aten::expand_copy.out", [rnd(1, 3), [0, 3], False, Out((0, 3))]))
    x = rnd(2, 3, 4)
    for a, b in [(0, 1), (1, 2), (0, 2), (-1, 0), (1, 1)]:
        c.append(
            Case("transpose_copy %d %d" % (a, b), "aten::transpose_copy.int_out", [x, a, b, Out(x.transpose(a, b).shape)], noalloc=True)
        )
    for dt in _DTYPES:
        c.append(Case("transpose_copy %s" % _name(dt), "aten::transpose_copy.int_out", [_x(dt, 3, 5), 0, 1, Out((5, 3), dt)], noalloc=True))
    c += [
        Case("t_copy 2-D", "aten::t_copy.out", [rnd(3, 7), Out((7, 3))], noalloc=True),
        Case("t_copy 1-D", "aten::t_copy.out", [rnd(4), Out((4,))], noalloc=True),
        Case("t_copy 0-dim", "aten::t_copy.out", [torch.tensor(2.0), Out(())]),
        Case("t_copy i64", "aten::t_copy.out", [_long(2, 3), Out((3, 2), I64)], noalloc=True),
    ]
    return c


def squeeze_cases():
    x = rnd(2, 1, 3, 1)
    c = [
        Case("unsqueeze_copy dim 0", "aten::unsqueeze_copy.out", [rnd(3, 4), 0, Out((1, 3, 4))], noalloc=True),
        Case("unsqueeze_copy dim -1", "aten::unsqueeze_copy.out", [rnd(3, 4), -1, Out((3, 4, 1))], noalloc=True),
        Case("unsqueeze_copy 0-dim", "aten::unsqueeze_copy.out", [torch.tensor(1.5), 0, Out((1,))]),
        Case("unsqueeze_copy i64", "aten::unsqueeze_copy.out", [_long(3), 1, Out((3, 1), I64)], noalloc=True),
        Case("squeeze_copy all", "aten::squeeze_copy.out", [x, Out((2, 3))], noalloc=True),
        Case("squeeze_copy all to 0-dim", "aten::squeeze_copy.out", [rnd(1, 1), Out(())]),
        Case("squeeze_copy dim 1", "aten::squeeze_copy.dim_out", [x, 1, Out((2, 3, 1))], noalloc=True),
        Case("squeeze_copy dim of size 3 kept", "aten::squeeze_copy.dim_out", [x, 2, Out((2, 1, 3, 1))], noalloc=True),
        Case("squeeze_copy dims", "aten::squeeze_copy.dims_out", [x, [1, -1], Out((2, 3))], noalloc=True),
        Case("squeeze_copy dims bool", "aten::squeeze_copy.dims_out", [_bools(1, 4), [0], Out((4,), BOOL)], noalloc=True),
        Case("alias_copy f32", "aten::alias_copy.out", [rnd(2, 3), Out((2, 3))], noalloc=True),
        Case("alias_copy i64", "aten::alias_copy.out", [_long(4), Out((4,), I64)], noalloc=True),
    ]
    for dims in ([0], [1, 2], [-1], [0, 1, 2], []):
        out = x.flip(dims).shape
        c.append(Case("flip f32 %s" % dims, "aten::flip.out", [x, dims, Out(out)], noalloc=True))
    for src, reps in [((2, 3), [2, 1]), ((2, 3), [1, 3]), ((3,), [2, 2]), ((2, 1, 2), [1, 2, 3]), ((), [3]), ((2,), [0])]:
        t = rnd(*src)
        c.append(
            Case(
                "repeat %s %s" % (list(src), reps),
                "aten::repeat.out",
                [t, reps, Out(t.repeat(reps).shape)],
                noalloc=t.repeat(reps).numel() > 0,
            )
        )
    c += [
        Case("repeat i64", "aten::repeat.out", [_long(2), [3, 2], Out((3, 4), I64)], noalloc=True),
        Case("flip many rows", "aten::flip.out", [rnd(70, 2), [0], Out((70, 2))], noalloc=True),
        Case("flip i64 last dim", "aten::flip.out", [_long(3, 4), [1], Out((3, 4), I64)], noalloc=True),
        Case("flip bool", "aten::flip.out", [_bools(5), [0], Out((5,), BOOL)], noalloc=True),
        Case("flip 0-dim", "aten::flip.out", [torch.tensor(3.0), [], Out(())]),
    ]
    return c


def split_stack_cases():
    x = rnd(4, 6)
    c = [
        Case(
            "split_with_sizes_copy dim 1",
            "aten::split_with_sizes_copy.out",
            [x, [2, 3, 1], 1, [Out((4, 2)), Out((4, 3)), Out((4, 1))]],
            noalloc=True,
        ),
        Case("split_with_sizes_copy dim 0", "aten::split_with_sizes_copy.out", [x, [1, 3], 0, [Out((1, 6)), Out((3, 6))]], noalloc=True),
        Case(
            "split_with_sizes_copy gates, one step on Arm",  # contiguous pieces: copy_thumb.merge
            "aten::split_with_sizes_copy.out",
            [rnd(1, 16), [4, 4, 4, 4], 1, [Out((1, 4)) for _ in range(4)]],
            noalloc=True,
        ),
        Case(
            "split_with_sizes_copy uint8 rows",  # byte ranges (3 and 6 bytes) in one merged step
            "aten::split_with_sizes_copy.out",
            [torch.arange(9, dtype=torch.uint8).reshape(3, 3), [1, 2], 0, [Out((1, 3), torch.uint8), Out((2, 3), torch.uint8)]],
            noalloc=True,
        ),
        Case("split_with_sizes_copy zero piece", "aten::split_with_sizes_copy.out", [x, [0, 6], -1, [Out((4, 0)), Out((4, 6))]]),
        Case(
            "split_with_sizes_copy i64 gates",
            "aten::split_with_sizes_copy.out",
            [_long(2, 12), [4, 4, 4], 1, [Out((2, 4), I64), Out((2, 4), I64), Out((2, 4), I64)]],
            noalloc=True,
        ),
        Case("unbind_copy dim 0", "aten::unbind_copy.int_out", [rnd(3, 2), 0, [Out((2,)), Out((2,)), Out((2,))]], noalloc=True),
        Case("unbind_copy dim -1", "aten::unbind_copy.int_out", [rnd(2, 2, 2), -1, [Out((2, 2)), Out((2, 2))]], noalloc=True),
        Case("unbind_copy i32", "aten::unbind_copy.int_out", [rnd(2, 3, dtype=I32), 1, [Out((2,), I32) for _ in range(3)]]),
    ]
    a, b = rnd(2, 3, seed=1), rnd(2, 3, seed=2)
    for d in (0, 1, 2, -1):
        shape = torch.stack([a, b], d).shape
        c.append(Case("stack dim %d" % d, "aten::stack.out", [[a, b], d, Out(shape)], noalloc=True))
    c += [
        Case("stack i64", "aten::stack.out", [[_long(3), _long(3)], 0, Out((2, 3), I64)], noalloc=True),
        Case("stack single", "aten::stack.out", [[a], 1, Out((2, 1, 3))]),
        Case("stack 0-dim", "aten::stack.out", [[torch.tensor(1.0), torch.tensor(2.0)], 0, Out((2,))]),
    ]
    return c


def _dim_order(x, non_blocking, dim_order, out):
    return [x.to(out.dtype)]


def _copy_(x, src, non_blocking):
    return [x.copy_(src)]


def copy_cases():
    c = []
    conv = [
        (F32, I32),
        (F32, I64),
        (F32, BOOL),
        (F32, U8),
        (F32, I8),
        (F32, F64),
        (F64, F32),
        (I32, F32),
        (I64, F32),
        (I64, I32),
        (I32, I64),
        (I32, I8),
        (I32, U8),
        (I32, I16),
        (BOOL, F32),
        (BOOL, I32),
        (BOOL, U8),
        (U8, I32),
        (I8, F32),
        (F32, F32),
    ]
    vals = torch.tensor([[0.0, -1.5, 2.7, -0.2], [300.9, -129.0, 1e6, -7.0]])
    for src, dst in conv:
        if src.is_floating_point:
            x = vals.to(src) if dst not in (U8,) else vals.abs().to(src)
            if dst in (U8, I8):
                x = x.clamp(-100, 100)
        elif src == BOOL:
            x = _bools(2, 4)
        else:
            x = (torch.tensor([[0, -1, 2, 300], [-129, 70000, 255, -7]], dtype=I64)).to(src)
        c.append(Case("_to_copy %s -> %s" % (_name(src), _name(dst)), "aten::_to_copy.out", [x, False, None, Out(x.shape, dst)]))
    big = torch.tensor([3e9, -5e9, 1.0, -1.0])
    c.append(Case("_to_copy f64 beyond int32 -> i64", "aten::_to_copy.out", [big.double(), False, None, Out((4,), I64)]))
    c.append(
        Case("_to_copy i64 beyond int32 -> f32", "aten::_to_copy.out", [torch.tensor([2**40 + 3, -(2**33), 5]), False, None, Out((3,))])
    )
    c.append(
        Case("_to_copy nan and inf -> bool", "aten::_to_copy.out", [torch.tensor([NAN, INF, 0.0, -0.0]), False, None, Out((4,), BOOL)])
    )
    c.append(Case("_to_copy empty", "aten::_to_copy.out", [torch.zeros(0, 2), False, None, Out((0, 2), I32)]))
    c.append(Case("_to_copy i32 -> i32 no alloc", "aten::_to_copy.out", [rnd(3, 3, dtype=I32), False, 0, Out((3, 3), I32)], noalloc=True))
    x = rnd(2, 3, 4)
    c += [
        Case(
            "_to_dim_order_copy f32 -> i32",
            "dim_order_ops::_to_dim_order_copy.out",
            [x * 10, False, [0, 1, 2], Out(x.shape, I32)],
            reference=_dim_order,
        ),
        Case(
            "_to_dim_order_copy i64 -> f32",
            "dim_order_ops::_to_dim_order_copy.out",
            [_long(3), False, None, Out((3,))],
            reference=_dim_order,
        ),
        Case(
            "_clone_dim_order f32",
            "dim_order_ops::_clone_dim_order.out",
            [x, False, [0, 1, 2], Out(x.shape)],
            reference=_dim_order,
            noalloc=True,
        ),
        Case(
            "_clone_dim_order bool",
            "dim_order_ops::_clone_dim_order.out",
            [_bools(5), False, None, Out((5,), BOOL)],
            reference=_dim_order,
            noalloc=True,
        ),
        Case("copy same shape", "aten::copy.out", [rnd(2, 3), rnd(2, 3, seed=9), False, Out((2, 3))], noalloc=True),
        Case("copy broadcast", "aten::copy.out", [rnd(2, 3), rnd(3, seed=9), False, Out((2, 3))], noalloc=True),
        Case("copy i32 src into f32", "aten::copy.out", [rnd(2, 3), rnd(1, 3, dtype=I32), False, Out((2, 3))]),
        Case("copy f32 src into i64", "aten::copy.out", [_long(2, 2), rnd(2, 2, scale=9.0), False, Out((2, 2), I64)]),
        # in place (a mutable buffer's write-back): self is the out
        Case("copy_ f32", "aten::copy_", [Out((2, 3)), rnd(2, 3, seed=9), False], noalloc=True, reference=_copy_),
        Case(
            "copy_ i8 broadcast", "aten::copy_", [Out((3, 4), torch.int8), rnd(4, dtype=torch.int8), False], noalloc=True, reference=_copy_
        ),
        Case("copy_ i32 src into f32", "aten::copy_", [Out((2, 3)), rnd(2, 3, dtype=I32), False], reference=_copy_),
    ]
    return c


def pad_fill_cases():
    c = []
    x = rnd(2, 3, 4)
    for pad, value in [
        ([1, 2], 0.0),
        ([1, 1, 2, 0], -1.5),
        ([0, 0, 0, 0, 1, 1], 2.0),
        ([-1, 1], 0.0),
        ([2, -2, -1, 0], 3.0),
        ([], 0.0),
        ([0, 1, 1, 0, 0, 0], INF),
    ]:
        out = torch.nn.functional.pad(x, pad, value=value)
        c.append(
            Case("constant_pad_nd %s value %s" % (pad, value), "aten::constant_pad_nd.out", [x, pad, value, Out(out.shape)], noalloc=True)
        )
    c += [
        Case("constant_pad_nd i32", "aten::constant_pad_nd.out", [rnd(3, 2, dtype=I32), [1, 0], 7, Out((3, 3), I32)], noalloc=True),
        Case("constant_pad_nd i64", "aten::constant_pad_nd.out", [_long(2, 2), [1, 1], -3, Out((2, 4), I64)], noalloc=True),
        Case("constant_pad_nd bool", "aten::constant_pad_nd.out", [_bools(2, 2), [0, 1], True, Out((2, 3), BOOL)]),
        Case("constant_pad_nd f64 size-1 last dim", "aten::constant_pad_nd.out", [rnd(3, 1, dtype=F64), [1, 1], 0.5, Out((3, 3), F64)]),
        Case("constant_pad_nd crop to empty", "aten::constant_pad_nd.out", [rnd(2, 2), [-1, -1], 0.0, Out((2, 0))]),
        Case("constant_pad_nd all padding", "aten::constant_pad_nd.out", [torch.zeros(2, 0), [1, 2], 4.0, Out((2, 3))]),
        # rows of every channel (a patched stage's border band): contiguous runs copied whole (util/runs.py) ...
        Case(
            "constant_pad_nd i8 band rows",
            "aten::constant_pad_nd.out",
            [_x(I8, 1, 5, 3, 4), [0, 0, 1, 0], -4, Out((1, 5, 4, 4), I8)],
            noalloc=True,
        ),
        # ... and past util/runs.MAX_RUNS runs, rows of raw units
        Case(
            "constant_pad_nd many runs",
            "aten::constant_pad_nd.out",
            [rnd(1, 130, 1, 1), [0, 0, 1, 1], 0.5, Out((1, 130, 3, 1))],
            noalloc=True,
        ),
    ]
    for dt, v in [(F32, 1.5), (I32, -3), (I64, 2**33 + 1), (BOOL, True), (F64, -2.25), (U8, 200), (F32, NAN)]:
        c.append(Case("full %s %r" % (_name(dt), v), "aten::full.out", [[2, 3], v, Out((2, 3), dt)], noalloc=True))
    c += [
        Case("full 0-dim", "aten::full.out", [[], 4.0, Out(())]),
        Case("full int value into f32", "aten::full.out", [[3], 2, Out((3,))]),
        Case("full empty", "aten::full.out", [[0, 3], 1.0, Out((0, 3))]),
        Case("full_like f32", "aten::full_like.out", [rnd(2, 2), 0.0, None, Out((2, 2))], noalloc=True),
        Case("full_like into i64", "aten::full_like.out", [rnd(3), -1, 1, Out((3,), I64)], noalloc=True),
        Case("full_like bool", "aten::full_like.out", [rnd(2), False, None, Out((2,), BOOL)]),
        Case("scalar_tensor f32", "aten::scalar_tensor.out", [2.5, Out(())]),
        Case("scalar_tensor i64", "aten::scalar_tensor.out", [-7, Out((), I64)]),
        Case("scalar_tensor bool", "aten::scalar_tensor.out", [True, Out((), BOOL)]),
    ]
    for a, e, s, dt in [(0, 5, 1, I64), (2, 11, 3, I32), (5, 0, -2, I64), (0.0, 1.0, 0.25, F32), (-1.0, 1.0, 0.3, F64), (1, 1, 1, I64)]:
        n = len(torch.arange(a, e, s))
        c.append(
            Case(
                "arange.start_out %r %r %r %s" % (a, e, s, _name(dt)),
                "aten::arange.start_out",
                [a, e, s, Out((n,), dt)],
                noalloc=n > 0 and not isinstance(a, float),
            )
        )
    c += [
        Case("arange.out 4", "aten::arange.out", [4, Out((4,), I64)], noalloc=True),
        Case("arange.out 3.5 f32", "aten::arange.out", [3.5, Out((4,))]),
    ]
    return c


def errors():
    x = rnd(2, 3)
    e = [
        ("aten::slice_copy.Tensor_out", "step 0", [x, 1, 0, 2, 0, Out((2, 2))], INVALID_ARGUMENT, "step must be a positive int"),
        ("aten::slice_copy.Tensor_out", "out shape", [x, 1, 0, 2, 1, Out((2, 3))], INVALID_ARGUMENT, "result has shape [2, 2]"),
        ("aten::slice_copy.Tensor_out", "dtype", [x, 1, 0, 2, 1, Out((2, 2), I32)], INVALID_TYPE, "dtype mismatch"),
        ("aten::slice_copy.Tensor_out", "0-dim", [torch.tensor(1.0), 0, 0, 1, 1, Out(())], INVALID_ARGUMENT, "0-dim"),
        ("aten::slice_scatter.out", "src shape", [x, rnd(2, 2), 1, 0, 1, 1, Out((2, 3))], INVALID_ARGUMENT, "the slice of self"),
        ("aten::slice_scatter.out", "dtype", [x, rnd(2, 1, dtype=I32), 1, 0, 1, 1, Out((2, 3))], INVALID_TYPE, "dtype mismatch"),
        ("aten::select_copy.int_out", "index out of range", [x, 1, 3, Out((2,))], INVALID_ARGUMENT, "index 3 is out of range"),
        ("aten::select_copy.int_out", "bad dim", [x, 2, 0, Out((2,))], INVALID_ARGUMENT, "out of range"),
        ("aten::expand_copy.out", "incompatible", [x, [2, 4], False, Out((2, 4))], INVALID_ARGUMENT, "cannot expand"),
        ("aten::expand_copy.out", "fewer dims", [x, [3], False, Out((3,))], INVALID_ARGUMENT, "fewer dims"),
        ("aten::expand_copy.out", "-1 leading", [x, [-1, 2, 3], False, Out((1, 2, 3))], INVALID_ARGUMENT, "new leading dim"),
        ("aten::transpose_copy.int_out", "bad dim", [x, 0, 2, Out((3, 2))], INVALID_ARGUMENT, "out of range"),
        ("aten::transpose_copy.int_out", "out shape", [x, 0, 1, Out((2, 3))], INVALID_ARGUMENT, "result has shape [3, 2]"),
        ("aten::t_copy.out", "3-D", [rnd(2, 2, 2), Out((2, 2, 2))], INVALID_ARGUMENT, "at most 2 dims"),
        ("aten::unsqueeze_copy.out", "bad dim", [x, 3, Out((2, 3, 1))], INVALID_ARGUMENT, "out of range"),
        ("aten::squeeze_copy.out", "out shape", [rnd(2, 1), Out((2, 1))], INVALID_ARGUMENT, "result has shape [2]"),
        ("aten::squeeze_copy.dim_out", "dtype", [rnd(2, 1), 1, Out((2,), F64)], INVALID_TYPE, "dtype mismatch"),
        ("aten::squeeze_copy.dims_out", "dims not a list", [rnd(2, 1), 1, Out((2,))], INVALID_ARGUMENT, "must be a list"),
        ("aten::repeat.out", "too few repeats", [x, [2], Out((4, 3))], INVALID_ARGUMENT, "at least as many"),
        ("aten::repeat.out", "out shape", [x, [2, 2], Out((4, 3))], INVALID_ARGUMENT, "result has shape [4, 6]"),
        ("aten::flip.out", "repeated dim", [x, [0, -2], Out((2, 3))], INVALID_ARGUMENT, "appears twice"),
        ("aten::flip.out", "bad dim", [x, [2], Out((2, 3))], INVALID_ARGUMENT, "out of range"),
        ("aten::alias_copy.out", "shape", [x, Out((3, 2))], INVALID_ARGUMENT, "shapes differ"),
        ("aten::split_with_sizes_copy.out", "sizes do not add up", [x, [1, 1], 1, [Out((2, 1)), Out((2, 1))]], INVALID_ARGUMENT, "add up"),
        ("aten::split_with_sizes_copy.out", "piece shape", [x, [1, 2], 1, [Out((2, 1)), Out((2, 1))]], INVALID_ARGUMENT, "out[1]"),
        ("aten::split_with_sizes_copy.out", "out count", [x, [1, 2], 1, [Out((2, 1))]], INVALID_ARGUMENT, "list of 2 out tensors"),
        ("aten::unbind_copy.int_out", "out count", [x, 0, [Out((3,))]], INVALID_ARGUMENT, "list of 2 out tensors"),
        ("aten::stack.out", "shapes differ", [[x, rnd(3, 2)], 0, Out((2, 2, 3))], INVALID_ARGUMENT, "one shape"),
        ("aten::stack.out", "dtype", [[x, x.double()], 0, Out((2, 2, 3))], INVALID_TYPE, "tensors[1]"),
        ("aten::stack.out", "out shape", [[x, x], 0, Out((4, 3))], INVALID_ARGUMENT, "result has shape [2, 2, 3]"),
        ("aten::_to_copy.out", "channels last", [rnd(1, 2, 2, 2), False, 2, Out((1, 2, 2, 2))], NOT_SUPPORTED, "memory_format"),
        ("aten::_to_copy.out", "shape", [x, False, None, Out((3, 2), I32)], INVALID_ARGUMENT, "shapes differ"),
        (
            "dim_order_ops::_to_dim_order_copy.out",
            "channels last",
            [rnd(1, 2, 2, 2), False, [0, 2, 3, 1], Out((1, 2, 2, 2))],
            NOT_SUPPORTED,
            "dim_order",
        ),
        (
            "dim_order_ops::_clone_dim_order.out",
            "channels last",
            [rnd(1, 2, 2, 2), False, [0, 2, 3, 1], Out((1, 2, 2, 2))],
            NOT_SUPPORTED,
            "differs from its out tensor",
        ),
        ("dim_order_ops::_clone_dim_order.out", "dtype", [x, False, None, Out((2, 3), I32)], INVALID_TYPE, "dtype mismatch"),
        ("aten::copy.out", "src does not broadcast", [x, rnd(2), False, Out((2, 3))], INVALID_ARGUMENT, "do not broadcast"),
        ("aten::copy.out", "out dtype differs from self", [x, x, False, Out((2, 3), I32)], INVALID_TYPE, "dtype mismatch"),
        ("aten::copy_", "copy_ src does not broadcast", [Out((2, 3)), rnd(2), False], INVALID_ARGUMENT, "do not broadcast"),
        ("aten::constant_pad_nd.out", "odd pad", [x, [1], 0.0, Out((2, 4))], INVALID_ARGUMENT, "even length"),
        ("aten::constant_pad_nd.out", "too many pads", [x, [1, 1, 1, 1, 1, 1], 0.0, Out((4, 5))], INVALID_ARGUMENT, "at most 2 * 2"),
        ("aten::constant_pad_nd.out", "negative size", [x, [-2, -2], 0.0, Out((2, 0))], INVALID_ARGUMENT, "negative size"),
        (
            "aten::constant_pad_nd.out",
            "value does not fit",
            [rnd(2, dtype=I32), [1, 1], 1e12, Out((4,), I32)],
            INVALID_ARGUMENT,
            "does not fit",
        ),
        ("aten::full.out", "out shape", [[2, 2], 1.0, Out((2, 3))], INVALID_ARGUMENT, "result has shape [2, 2]"),
        ("aten::full.out", "nan into int", [[2], NAN, Out((2,), I32)], INVALID_ARGUMENT, "cannot be stored"),
        ("aten::full.out", "negative size", [[-1], 1.0, Out((1,))], INVALID_ARGUMENT, "non-negative"),
        ("aten::full_like.out", "shape", [x, 1.0, None, Out((3, 2))], INVALID_ARGUMENT, "shapes differ"),
        ("aten::full_like.out", "channels last", [x, 1.0, 2, Out((2, 3))], NOT_SUPPORTED, "memory_format"),
        ("aten::scalar_tensor.out", "not 0-dim", [1.0, Out((1,))], INVALID_ARGUMENT, "result has shape []"),
        ("aten::scalar_tensor.out", "not a number", [None, Out(())], INVALID_TYPE, "must be a number"),
        ("aten::arange.start_out", "step 0", [0, 3, 0, Out((3,), I64)], INVALID_ARGUMENT, "step must be nonzero"),
        ("aten::arange.start_out", "wrong sign", [0, 3, -1, Out((0,), I64)], INVALID_ARGUMENT, "inconsistent"),
        ("aten::arange.start_out", "length", [0, 3, 1, Out((4,), I64)], INVALID_ARGUMENT, "result has shape [3]"),
        ("aten::arange.out", "bool out", [3, Out((3,), BOOL)], INVALID_TYPE, "bool"),
        ("aten::arange.out", "inf", [INF, Out((3,))], INVALID_ARGUMENT, "finite"),
    ]
    return [Case("%s error %s" % (op.split("::")[1].split(".")[0], n), op, args, error=(code, text)) for op, n, args, code, text in e]


def cases():
    return (
        slice_select_cases() + expand_transpose_cases() + squeeze_cases() + split_stack_cases() + copy_cases() + pad_fill_cases() + errors()
    )

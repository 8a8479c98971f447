"""ExecuTorch's Cortex-M operators (cortex_m::, executorch.backends.cortex_m):
our kernels (portable_kernels/cortex_m/) bit for bit against ExecuTorch's
torch reference implementations, on random cases including saturation,
rounding ties and extreme shifts, in NCHW, channels-last and NHWC layouts."""

import random

import pytest
import torch

pytest.importorskip("tosa_serializer")  # ExecuTorch's Cortex-M passes import its Arm backend

import executorch.backends.cortex_m.quantizer.quantizer  # noqa: E402,F401  (imports ops.operators: registers torch.ops.cortex_m)
from cortex_m_harness import CHANNELS_LAST, empty, run, tensor  # noqa: E402
from executorch.backends.cortex_m.passes.passes_utils import requantize_cmsis  # noqa: E402

from mpy_et.errors import MpyEtError  # noqa: E402
from portable_kernels.cortex_m import cmsis  # noqa: E402

CM = torch.ops.cortex_m


def i8(*shape, g):
    return torch.randint(-128, 128, shape, dtype=torch.int8, generator=g)


def mult(rnd):
    """A CMSIS-NN multiplier: mostly normalized [2**30, 2**31), sometimes small or extreme."""
    return rnd.choice([rnd.randrange(1 << 30, 1 << 31), rnd.randrange(1 << 30, 1 << 31), (1 << 31) - 1, 1 << 30, rnd.randrange(1, 1 << 30)])


def test_requantize_matches_requantize_cmsis_exactly():
    rnd = random.Random(0)
    vs, cases = [], 0
    for _ in range(400):
        m = rnd.choice([0, 1, 1 << 30, (1 << 31) - 1, rnd.randrange(1 << 31)])
        sh = rnd.choice([rnd.randrange(-31, 1), rnd.randrange(-40, 32), 0, -31, -30, 1, 10])
        vs = [rnd.randrange(-(1 << 30), 1 << 30) for _ in range(30)] + [0, 1, -1, (1 << 30) - 1, -(1 << 30)]
        vs += [rnd.randrange(-(1 << 31), 1 << 31) for _ in range(5)]  # beyond small ints: the wide path
        if -31 <= sh < 0 and m:  # exact ties of the final rounding: v * M / 2**(31 - sh) = k + 1/2
            vs += [v for v in (((2 * k + 1) << (30 - sh)) // m for k in range(-3, 3)) if -(1 << 31) <= v < 1 << 31]
        want = requantize_cmsis(torch.tensor(vs, dtype=torch.int64), m, sh).tolist()
        rq = cmsis.params(m, sh, "t")
        assert [cmsis.requantize(v, rq) for v in vs] == want, (m, sh)
        cases += len(vs)
    assert cases > 15000


def _conv_case(rnd, g, depthwise, nhwc):
    n, c = rnd.choice([1, 2]), rnd.randrange(1, 6)
    h, w = rnd.randrange(3, 9), rnd.randrange(3, 9)
    kh, kw = rnd.randrange(1, 4), rnd.randrange(1, 4)
    stride = [rnd.randrange(1, 3), rnd.randrange(1, 3)]
    pad = [rnd.randrange(0, kh), rnd.randrange(0, kw)]
    dil = [1, 1]  # ExecuTorch's reference (torch's int32 conv) has no dilated form
    x = i8(n, c, h, w, g=g)
    if depthwise:
        dm = rnd.randrange(1, 3)
        co = c * dm
        wt = i8(1, kh, kw, co, g=g)
    else:
        groups = rnd.choice([1, 1, c]) if c > 1 else 1
        co = groups * rnd.randrange(1, 4)
        wt = i8(co, kh, kw, c // groups, g=g)
    bias = torch.randint(-(1 << 16), 1 << 16, (co,), dtype=torch.int32, generator=g) if rnd.random() < 0.8 else None
    mults = torch.tensor([mult(rnd) for _ in range(co)], dtype=torch.int32)
    # shifts from -31 (everything rounds to 0 or +-1) to +2 (saturates)
    shifts = torch.tensor([rnd.choice([rnd.randrange(-12, -4), -31, -20, 2, 0]) for _ in range(co)], dtype=torch.int32)
    lo = rnd.choice([-128, -128, -100])
    hi = rnd.choice([127, 127, 90])
    args = (bias, stride, pad, dil)
    tail = (rnd.randrange(-127, 129), rnd.randrange(-128, 128), mults, shifts, lo, hi, torch.zeros(0, dtype=torch.int8))
    return x, wt, args, (dm,) if depthwise else (), tail


@pytest.mark.parametrize("depthwise", [False, True])
@pytest.mark.parametrize("nhwc", [False, True])
def test_convolutions_match_executorch(depthwise, nhwc):
    rnd = random.Random(1 + 2 * depthwise + nhwc)
    g = torch.Generator().manual_seed(rnd.randrange(1000))
    op = ("quantized_depthwise_conv2d" if depthwise else "quantized_conv2d") + ("_nhwc" if nhwc else "")
    for case in range(25):
        x, wt, (bias, stride, pad, dil), dm, tail = _conv_case(rnd, g, depthwise, nhwc)
        xin = x.permute(0, 2, 3, 1).contiguous() if nhwc else x.to(memory_format=torch.channels_last) if case % 2 else x
        want = getattr(CM, op)(xin, wt, bias, stride, pad, dil, *dm, *tail)
        m_bias = tensor(bias) if bias is not None else None
        args = [tensor(xin), tensor(wt), m_bias, stride, pad, dil, *dm, tail[0], tail[1], tensor(tail[2]), tensor(tail[3]), *tail[4:6]]
        args.append(tensor(tail[6]))
        out_order = None if nhwc else CHANNELS_LAST if case % 3 else (0, 1, 2, 3)
        got = run(op, args, empty(tuple(want.shape), order=out_order))
        assert torch.equal(got, want), (op, case, (got.int() - want.int()).abs().max())


@pytest.mark.parametrize("nhwc", [False, True])
def test_transpose_conv_matches_executorch(nhwc):
    rnd = random.Random(7 + nhwc)
    g = torch.Generator().manual_seed(3)
    op = "quantized_transpose_conv2d" + ("_nhwc" if nhwc else "")
    for case in range(15):
        n, c, h, w = 1, rnd.randrange(1, 5), rnd.randrange(2, 6), rnd.randrange(2, 6)
        co, kh, kw = rnd.randrange(1, 4), rnd.randrange(1, 4), rnd.randrange(1, 4)
        stride, dil = [rnd.randrange(1, 3), rnd.randrange(1, 3)], [1, rnd.choice([1, 2])]  # float32 reference: dilation works
        pad = [rnd.randrange(0, kh), rnd.randrange(0, kw)]
        opad = [rnd.randrange(0, stride[0]), rnd.randrange(0, stride[1])]
        x, wt = i8(n, c, h, w, g=g), i8(co, kh, kw, c, g=g)
        bias = torch.randint(-5000, 5000, (co,), dtype=torch.int32, generator=g)
        mults = torch.tensor([mult(rnd) for _ in range(co)], dtype=torch.int32)
        shifts = torch.tensor([rnd.randrange(-14, -4) for _ in range(co)], dtype=torch.int32)
        xin = x.permute(0, 2, 3, 1).contiguous() if nhwc else x.to(memory_format=torch.channels_last)
        scratch = torch.zeros(0, dtype=torch.int8)
        tail = (rnd.randrange(-127, 129), rnd.randrange(-128, 128), mults, shifts, -128, 127, scratch, scratch)
        want = getattr(CM, op)(xin, wt, bias, stride, pad, opad, dil, *tail)
        args = [tensor(xin), tensor(wt), tensor(bias), stride, pad, opad, dil, tail[0], tail[1], tensor(mults), tensor(shifts)]
        args += [-128, 127, tensor(scratch), tensor(scratch)]
        got = run(op, args, empty(tuple(want.shape), order=None if nhwc else CHANNELS_LAST))
        assert torch.equal(got, want), (op, case)


def test_linear_matches_executorch_with_bias_and_with_kernel_sum():
    rnd = random.Random(3)
    g = torch.Generator().manual_seed(4)
    for case in range(30):
        rows, k, o = rnd.choice([(1,), (3,), (2, 2)]), rnd.randrange(1, 40), rnd.randrange(1, 12)
        x, wt = i8(*rows, k, g=g), i8(o, k, g=g)
        m, sh = mult(rnd), rnd.choice([rnd.randrange(-14, -6), -31, 1])
        lo, hi = rnd.choice([(-128, 127), (-128, 0), (-20, 60)])
        if case % 2:  # the MVE form: kernel_sum, filter_offset
            ksum, bias = torch.randint(-(1 << 15), 1 << 15, (1, o), dtype=torch.int32, generator=g), None
            xo, fo = 0, rnd.randrange(-128, 129)
        else:
            ksum, bias = None, torch.randint(-(1 << 15), 1 << 15, (o,), dtype=torch.int32, generator=g)
            xo, fo = rnd.randrange(-127, 129), 0
        oo = rnd.randrange(-128, 128)
        want = CM.quantized_linear(x, wt, bias, ksum, xo, fo, oo, [m], [sh], hi, lo)
        args = [tensor(x), tensor(wt), tensor(bias) if bias is not None else None, tensor(ksum) if ksum is not None else None]
        got = run("quantized_linear", args + [xo, fo, oo, [m], [sh], hi, lo], empty(tuple(want.shape)))
        assert torch.equal(got, want), case


@pytest.mark.parametrize("op", ["quantized_add", "quantized_mul"])
def test_elementwise_match_executorch_with_channel_broadcast(op):
    rnd = random.Random(5)
    g = torch.Generator().manual_seed(6)
    for case in range(30):
        shape = (1, rnd.randrange(1, 6), rnd.randrange(1, 5), rnd.randrange(1, 5))
        a = i8(*shape, g=g).to(memory_format=torch.channels_last)
        b = i8(*shape, g=g).to(memory_format=torch.channels_last)
        if case % 3 == 2:  # channel broadcast: [1, C, 1, 1]
            b = i8(1, shape[1], 1, 1, g=g)
        za, zb, zo = (rnd.randrange(-128, 128) for _ in range(3))
        if op == "quantized_add":
            ma, mb, mo = mult(rnd), mult(rnd), mult(rnd)
            sa, sb, so = rnd.randrange(-25, -18), rnd.randrange(-25, -18), rnd.choice([rnd.randrange(-22, -16), -31, 0])
            lo, hi = rnd.choice([(-128, 127), (-50, 50)])
            want = CM.quantized_add(a, za, ma, sa, b, zb, mb, sb, zo, mo, so, lo, hi)
            args = [tensor(a), za, ma, sa, tensor(b), zb, mb, sb, zo, mo, so, lo, hi]
        else:
            mo, so = mult(rnd), rnd.choice([rnd.randrange(-16, -6), -31, 0])
            want = CM.quantized_mul(a, za, b, zb, zo, mo, so)
            args = [tensor(a), za, tensor(b), zb, zo, mo, so]
        got = run(op, args, empty(tuple(want.shape), order=tuple(want.dim_order())))
        assert torch.equal(got, want), (op, case)


def test_div_activation_minmax_transpose_bmm_match_executorch():
    rnd = random.Random(8)
    g = torch.Generator().manual_seed(9)
    for case in range(20):
        a, b = i8(2, 3, 5, g=g), i8(2, 3, 5, g=g)
        b[0, 0, :2] = 7  # the divisor's zero point: quotient 0
        scale = rnd.choice([0.37, 1.0, 2.5, 1e-3, 123.0])
        want = CM.quantized_div(a, 3, b, 7, -5, scale)
        assert torch.equal(run("quantized_div", [tensor(a), 3, tensor(b), 7, -5, scale], empty((2, 3, 5))), want), case
        lut = i8(256, g=g)
        x = i8(1, 3, 4, 5, g=g).to(memory_format=torch.channels_last)
        want = CM.quantized_activation(x, lut)
        assert torch.equal(run("quantized_activation", [tensor(x), tensor(lut)], empty((1, 3, 4, 5), order=CHANNELS_LAST)), want)
        assert torch.equal(run("quantized_activation", [tensor(x), tensor(lut)], empty((1, 3, 4, 5))), want)
        y = i8(1, 3, 1, 1, g=g)
        for op in ("minimum", "maximum"):
            want = getattr(CM, op)(x, y)
            assert torch.equal(run(op, [tensor(x), tensor(y)], empty(tuple(want.shape), order=CHANNELS_LAST)), want), op
        perm = rnd.sample(range(4), 4)
        want = CM.transpose(x, perm)
        assert torch.equal(run("transpose", [tensor(x), perm], empty(tuple(want.shape))), want), perm
        lhs, rhs = i8(2, 3, 7, g=g), i8(2, 4, 7, g=g)
        m, sh = mult(rnd), rnd.randrange(-14, -6)
        want = CM.quantized_batch_matmul(lhs, 5, rhs, -3, 9, m, sh, torch.zeros(0, dtype=torch.int8))
        args = [tensor(lhs), 5, tensor(rhs), -3, 9, m, sh, tensor(torch.zeros(0, dtype=torch.int8))]
        assert torch.equal(run("quantized_batch_matmul", args, empty((2, 3, 4))), want), case


def test_pad_matches_executorch_in_both_layouts():
    rnd = random.Random(10)
    g = torch.Generator().manual_seed(11)
    for case in range(20):
        x = i8(1, rnd.randrange(2, 5), rnd.randrange(2, 5), rnd.randrange(2, 5), g=g)
        if case % 2:
            x = x.to(memory_format=torch.channels_last)
        pre = [0] + [rnd.randrange(0, 3) for _ in range(3)]
        post = [0] + [rnd.randrange(0, 3) for _ in range(3)]
        want = CM.pad(x, pre, post, -7)
        got = run("pad", [tensor(x), pre, post, -7], empty(tuple(want.shape), order=tuple(want.dim_order())))
        assert torch.equal(got, want), case


@pytest.mark.parametrize("nhwc", [False, True])
def test_max_pool_matches_executorch(nhwc):
    rnd = random.Random(12 + nhwc)
    g = torch.Generator().manual_seed(13)
    op = "quantized_max_pool2d" + ("_nhwc" if nhwc else "")
    for case in range(20):
        k = [rnd.randrange(1, 4), rnd.randrange(1, 4)]
        s = [rnd.randrange(1, 3), rnd.randrange(1, 3)]
        p = [rnd.randrange(0, k[0] // 2 + 1), rnd.randrange(0, k[1] // 2 + 1)]
        x = i8(1, 3, rnd.randrange(4, 9), rnd.randrange(4, 9), g=g).to(memory_format=torch.channels_last)
        xin = x.permute(0, 2, 3, 1).contiguous() if nhwc else x
        lo, hi = rnd.choice([(-128, 127), (-10, 40)])
        want = getattr(CM, op)(xin, k, s, p, [1, 1], False, 4, 4, lo, hi)
        got = run(op, [tensor(xin), k, s, p, [1, 1], False, 4, 4, lo, hi], empty(tuple(want.shape), order=tuple(want.dim_order())))
        assert torch.equal(got, want), case


@pytest.mark.parametrize("nhwc", [False, True])
def test_avg_pool_matches_executorch(nhwc):
    """Bit for bit on random windows; ExecuTorch's reference rounds a float32
    average, so exact ties (S / n = k + 1/2) are where the two could part:
    counted over many cases and required to be none."""
    rnd = random.Random(14 + nhwc)
    g = torch.Generator().manual_seed(15)
    op = "quantized_avg_pool2d" + ("_nhwc" if nhwc else "")
    for case in range(40):
        k = [rnd.randrange(1, 5), rnd.randrange(1, 5)]
        s = [rnd.randrange(1, 4), rnd.randrange(1, 4)]
        p = [rnd.randrange(0, k[0] // 2 + 1), rnd.randrange(0, k[1] // 2 + 1)]
        ceil = bool(rnd.random() < 0.3)
        x = i8(2, 4, rnd.randrange(4, 10), rnd.randrange(4, 10), g=g).to(memory_format=torch.channels_last)
        xin = x.permute(0, 2, 3, 1).contiguous() if nhwc else x
        zp, m, sh = rnd.randrange(-128, 128), mult(rnd), rnd.randrange(-25, -5)
        scratch = torch.zeros(0, dtype=torch.int8)
        want = getattr(CM, op)(xin, k, s, p, ceil, zp, m, sh, scratch)
        args = [tensor(xin), k, s, p, ceil, zp, m, sh, tensor(scratch)]
        got = run(op, args, empty(tuple(want.shape), order=tuple(want.dim_order())))
        assert torch.equal(got, want), (case, (got.int() - want.int()).abs().max())


def test_quantize_and_dequantize_bit_for_bit():
    g = torch.Generator().manual_seed(16)
    special = torch.tensor([0.0, -0.0, 1e-30, -1e-30, 1e30, -1e30, float("inf"), float("-inf")])
    for scale, zp in ((0.007837248034775257, 0), (0.1, -3), (1 / 3, 100), (2.5e-4, -128), (17.0, 5)):
        x = torch.cat([torch.randn(2000, generator=g) * scale * 150, special])
        # the float32 neighbours of every rounding boundary (k + 1/2) * scale
        b = (torch.arange(-140, 140, dtype=torch.float64) + 0.5) * scale
        x = torch.cat([x, b.float(), b.float().nextafter(torch.tensor(1e30)), b.float().nextafter(torch.tensor(-1e30))])
        want = CM.quantize_per_tensor(x, scale, zp, -128, 127, torch.int8)
        assert torch.equal(run("quantize_per_tensor", [tensor(x), scale, zp, -128, 127, 1], empty(tuple(x.shape))), want), scale
        q = torch.arange(-128, 128, dtype=torch.int8)
        want = CM.dequantize_per_tensor(q, scale, zp, -128, 127, torch.int8)
        got = run("dequantize_per_tensor", [tensor(q), scale, zp, -128, 127, 1], empty((256,), torch.float32))
        assert torch.equal(got.view(torch.int32), want.view(torch.int32)), scale


def test_load_time_errors_name_the_problem():
    x = tensor(torch.zeros(1, 2, 3, 3, dtype=torch.int8))
    wt = tensor(torch.zeros(4, 1, 1, 2, dtype=torch.int8))
    m, s = tensor(torch.ones(4, dtype=torch.int32)), tensor(torch.zeros(4, dtype=torch.int32))
    out = empty((1, 4, 3, 3))
    with pytest.raises(MpyEtError, match="requantization multiplier -1"):
        cmsis.params(-1, 0, "t")
    with pytest.raises(MpyEtError, match="activation range"):
        run("quantized_conv2d", [x, wt, None, [1, 1], [0, 0], [1, 1], 0, 0, m, s, 5, -5, None], out)
    with pytest.raises(MpyEtError, match="out"):
        run("quantized_conv2d", [x, wt, None, [1, 1], [0, 0], [1, 1], 0, 0, m, s, -128, 127, None], empty((1, 4, 2, 2)))
    with pytest.raises(MpyEtError, match="only dilation 1"):
        run("quantized_max_pool2d", [x, [2, 2], [1, 1], [0, 0], [2, 2], False, 0, 0, -128, 127], empty((1, 2, 1, 1)))


def test_exact_float32_arithmetic_matches_torch():
    """cortex_m/f32.py (products, quotients, round half to even) bit for bit
    against torch float32 on random bit patterns (zero's sign aside)."""
    import struct

    from portable_kernels.cortex_m import f32

    rnd = random.Random(18)
    for _ in range(3000):
        a, b = rnd.getrandbits(32), rnd.getrandbits(32)
        if (a >> 23) & 0xFF == 0xFF or (b >> 23) & 0xFF == 0xFF:
            continue  # inf / NaN
        ta = torch.tensor([struct.unpack("<f", struct.pack("<I", a))[0]])
        tb = torch.tensor([struct.unpack("<f", struct.pack("<I", b))[0]])
        for got, want in (
            (f32.mul(f32.decode(a), f32.decode(b)), ta * tb),
            (f32.div(f32.decode(a), f32.decode(b)) if int(tb.view(torch.int32)) & 0x7FFFFFFF else None, ta / tb),
        ):
            if got is None or float(want) == 0.0 or want.isnan():
                continue
            assert f32.encode(got) == int(want.view(torch.int32)) & 0xFFFFFFFF, (hex(a), hex(b))
        r = float(torch.round(ta))
        if abs(r) < 2**40:
            assert f32.round_int(f32.decode(a)) == int(r), hex(a)

"""The soft-float float32 convolution of 64-bit viper ports
(portable_kernels/native/f32_conv_viper.py) on unix MicroPython, in one process:
results must be the exact sum rounded once to float32 (math.fsum of the
exact float64 products, rounded to float32) in all but rare truncation
cases, and never more than 1 ulp away; an inf or NaN that an output reads
must be refused (return 1) so the bytecode step runs instead. Transposed
convolutions and f32_conv_dw_viper (one input channel per group) are held
to the same rule. Whole convolutions also run through aten::convolution.out
(the viper step and its bytecode fallback) against torch, the viper steps
again under heap_lock (they allocate nothing; the fallback does)."""

import math
import os
import random
import struct

import pytest

from host_tools.targets import run_code

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "device", "f32_conv_runner.py")


def _f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def _bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def _ref(case):
    ctl, x, wt, bias = case
    n, groups, opg, cpg, h, w, kh, kw, sy, sx, py, px, dy, dx, oh, ow, has_bias, _, tr = ctl
    out = []
    for b in range(n):
        for c in range(groups * opg):
            g = c // opg
            for oy in range(oh):
                for ox in range(ow):
                    terms = [bias[c]] if has_bias else []
                    for ic in range(cpg):
                        for ky in range(kh):
                            iy = oy * sy - py + ky * dy
                            ny = oy + py - ky * dy
                            if tr:  # transposed: the input row whose stride lands on oy
                                iy = ny // sy if ny >= 0 and ny % sy == 0 else -1
                            for kx in range(kw):
                                ix = ox * sx - px + kx * dx
                                nx = ox + px - kx * dx
                                if tr:
                                    ix = nx // sx if nx >= 0 and nx % sx == 0 else -1
                                if 0 <= iy < h and 0 <= ix < w:
                                    xv = x[((b * groups + g) * cpg + ic) * h * w + iy * w + ix]
                                    if tr:
                                        wi = (((g * cpg + ic) * opg + c - g * opg) * kh + ky) * kw + kx
                                    else:
                                        wi = ((c * cpg + ic) * kh + ky) * kw + kx
                                    terms.append(xv * wt[wi])
                    try:
                        s = math.fsum(terms)
                        out.append(_bits(_f32(s)) if abs(s) < 3.4028235677973366e38 else _bits(math.copysign(math.inf, s)))
                    except OverflowError:
                        out.append(0x7F800000)
    return out


def _values(rng, count, lo, hi, special=()):
    vals = []
    for _ in range(count):
        r = rng.random()
        if special and r < 0.05:
            vals.append(rng.choice(special))
        else:
            vals.append(_f32(rng.uniform(-1, 1) * 2.0 ** rng.randint(lo, hi)))
    return vals


def _geometry(n, groups, opg, cpg, h, w, kh, kw, s=(1, 1), p=(0, 0), d=(1, 1), bias=1, chunk=None, tr=0, op=(0, 0)):
    """The control words; chunk: output channels whose weights are decoded at
    once; tr: transposed (op: output padding)."""
    oh = (h + 2 * p[0] - d[0] * (kh - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (kw - 1) - 1) // s[1] + 1
    if tr:
        oh = (h - 1) * s[0] - 2 * p[0] + d[0] * (kh - 1) + 1 + op[0]
        ow = (w - 1) * s[1] - 2 * p[1] + d[1] * (kw - 1) + 1 + op[1]
    return [n, groups, opg, cpg, h, w, kh, kw, s[0], s[1], p[0], p[1], d[0], d[1], oh, ow, bias, chunk or opg, tr]


# 2-D and 1-D (h = kh = 1) geometries: stride, padding, dilation, groups,
# depthwise (with multiplier 1 and 2), pointwise, batch 2, no bias, weights
# decoded in chunks of output channels (with a shorter last chunk)
GEOMETRIES = [
    _geometry(1, 1, 4, 3, 6, 7, 3, 3, p=(1, 1)),
    _geometry(1, 1, 3, 2, 9, 8, 3, 3, s=(2, 2), p=(1, 1), bias=0, chunk=2),
    _geometry(2, 2, 5, 3, 4, 5, 3, 3, p=(1, 1), chunk=2),
    _geometry(1, 1, 2, 2, 9, 9, 3, 3, p=(2, 2), d=(2, 2)),
    _geometry(2, 2, 3, 2, 5, 6, 3, 3, p=(1, 1)),
    _geometry(1, 4, 1, 1, 7, 7, 3, 3, s=(2, 2), p=(1, 1)),
    _geometry(1, 3, 2, 1, 6, 5, 3, 3, p=(1, 1), bias=0),
    _geometry(1, 1, 5, 8, 4, 4, 1, 1, chunk=3),
    _geometry(1, 1, 3, 4, 5, 5, 1, 1, s=(2, 2), bias=0),
    _geometry(1, 1, 3, 2, 1, 20, 1, 5, s=(1, 2), p=(0, 2)),
    _geometry(2, 2, 2, 3, 1, 16, 1, 3, d=(1, 3), p=(0, 1), bias=0),
    _geometry(1, 1, 2, 3, 6, 9, 2, 3, s=(1, 2), p=(0, 1)),
    _geometry(1, 1, 2, 1, 3, 3, 5, 5, p=(2, 2)),
    # transposed: stride 2 with output padding, padding, dilation, groups, 1-D, chunks
    _geometry(1, 1, 3, 4, 4, 5, 3, 3, s=(2, 2), p=(1, 1), tr=1, op=(1, 1)),
    _geometry(2, 2, 2, 2, 3, 4, 3, 2, s=(2, 3), d=(2, 1), tr=1, chunk=1, bias=0),
    _geometry(1, 1, 2, 3, 1, 7, 1, 4, s=(1, 2), p=(0, 1), tr=1),
    _geometry(1, 1, 4, 2, 5, 5, 3, 3, p=(1, 1), tr=1, chunk=3),
]
# normal, wide, denormal products, overflow
RANGES = [(-3, 3), (-60, 60), (-140, -100), (100, 120)]


def _cases():
    rng = random.Random(11)
    cases = []
    for ctl in GEOMETRIES:
        n, groups, opg, cpg, h, w, kh, kw = ctl[:8]
        for lo, hi in RANGES:
            x = _values(rng, n * groups * cpg * h * w, lo, hi, (0.0, -0.0, 1e-45, -3e-39))
            wt = _values(rng, groups * opg * cpg * kh * kw, lo, hi, (0.0, 2e-40))
            bias = _values(rng, groups * opg, lo, hi) if ctl[16] else []
            cases.append((ctl, x, wt, bias))
    # exact cancellation: the weights of the second half negate the first
    ctl = _geometry(1, 1, 1, 2, 1, 8, 1, 8, bias=0)
    x = [_f32(rng.uniform(-1, 1)) for _ in range(8)]
    cases.append((ctl, x + x, [1.0] * 8 + [-1.0] * 8, []))
    # cancellation down to a remainder 2**-40 below the largest terms, with a bias
    ctl = _geometry(1, 1, 1, 3, 1, 1, 1, 1)
    cases.append((ctl, [1.0, -1.0, 1.5 * 2.0**-40], [3.0, 3.0, 1.0], [2.0**-45]))
    # the longest sums allowed (2**14 - 1 terms) with the largest values
    k = 0x3FFF
    ctl = _geometry(1, 1, 2, 1, 1, k, 1, k, bias=0)
    cases.append((ctl, [3.4e38] * k, [-3.4e38] * k + [3.4e38] * k, []))
    ctl = _geometry(1, 1, 1, k, 1, 1, 1, 1, bias=0)
    cases.append((ctl, [1.0] * k, [_f32(rng.uniform(0, 1)) for _ in range(k)], []))
    return cases


def _refused_cases():
    """(case, refused?) pairs: inf/NaN in a read input, a weight or a bias is
    refused; one in an input no output reads (stride 2 skips it) is not."""
    out = []
    ctl = _geometry(1, 1, 2, 1, 5, 5, 3, 3, p=(1, 1))
    for v in (math.inf, -math.inf, math.nan):
        for where in ("x", "w", "bias"):
            x, wt, bias = [1.0] * 25, [0.5] * 18, [0.25, 0.0]
            {"x": x, "w": wt, "bias": bias}[where][1] = v
            out.append(((ctl, x, wt, bias), True))
    skip = _geometry(1, 1, 1, 1, 4, 4, 1, 1, s=(2, 2))
    x = [1.0] * 16
    x[5] = math.nan  # row 1, column 1: not read with stride 2
    out.append(((skip, x, [2.0], [1.0]), False))
    return out


def _far_below_cases():
    """Terms more than 62 bits below the largest one are dropped: after a
    cancellation of huge terms the result may then be off, but by less than
    2**-48 of the largest term (a float64 running sum's error is of the same
    order, a float32 one's far larger)."""
    ctl = _geometry(1, 1, 1, 3, 1, 1, 1, 1)
    return [(ctl, [3.0e38, -3.0e38, 1e-30], [1.0, 1.0, 1.0], [2e-38]), (ctl, [1.0, 1e-20, -1.0], [1.0, 1.0, 1.0], [0.0])]


def _blob(cases):
    out = bytearray()
    for ctl, x, wt, bias in cases:
        out += struct.pack("<19i", *ctl)
        for vals in (x, wt, bias):
            out += struct.pack("<%df" % len(vals), *vals)
    return bytes(out)


# whole convolutions: (name, 1-D, n, c, h, w, oc, kh, kw, stride, padding,
# dilation, groups, bias, special value at input / weight / bias index 0..2
# or None, transposed, output padding)
OPS = [
    ("resnet block", 0, 1, 8, 8, 8, 16, 3, 3, 2, 1, 1, 1, 1, None, 0, 0),
    ("depthwise", 0, 1, 6, 7, 7, 6, 3, 3, 1, 1, 1, 6, 1, None, 0, 0),
    ("pointwise", 0, 2, 8, 4, 4, 5, 1, 1, 1, 0, 1, 1, 0, None, 0, 0),
    ("1-D dilated", 1, 1, 3, 1, 12, 4, 1, 3, 1, 2, 2, 1, 1, None, 0, 0),
    ("NaN input", 0, 1, 2, 5, 5, 3, 3, 3, 1, 1, 1, 1, 1, (0, math.nan), 0, 0),
    ("NaN input depthwise", 0, 1, 4, 5, 5, 4, 3, 3, 2, 1, 1, 4, 1, (0, math.nan), 0, 0),
    ("inf weight depthwise 1-D", 1, 1, 3, 1, 9, 3, 1, 3, 1, 1, 1, 3, 0, (1, math.inf), 0, 0),
    ("inf weight", 0, 1, 2, 5, 5, 3, 3, 3, 1, 1, 1, 1, 0, (1, math.inf), 0, 0),
    ("-inf bias", 1, 1, 2, 1, 9, 2, 1, 3, 1, 1, 1, 2, 1, (2, -math.inf), 0, 0),
    ("2**14 terms", 0, 1, 2048, 3, 3, 2, 3, 3, 1, 0, 1, 1, 1, None, 0, 0),
    ("transposed stride 2", 0, 1, 4, 5, 5, 6, 3, 3, 2, 1, 1, 2, 1, None, 1, 1),
    ("transposed 1-D inf input", 1, 1, 2, 1, 7, 3, 1, 4, 2, 1, 1, 1, 1, (0, math.inf), 1, 0),
]


def _op_tensors(case, rng):
    import torch

    name, one_d, n, c, h, w, oc, kh, kw, s, p, d, g, has_bias, special, tr, _ = case
    x = torch.tensor([rng.uniform(-2, 2) for _ in range(n * c * h * w)], dtype=torch.float32)
    wt = torch.tensor([rng.uniform(-0.5, 0.5) for _ in range(oc * (c // g) * kh * kw)], dtype=torch.float32)
    bias = torch.tensor([rng.uniform(-1, 1) for _ in range(oc)], dtype=torch.float32) if has_bias else None
    if special:
        (x, wt, bias)[special[0]][1] = special[1]
    x = x.reshape((n, c, w) if one_d else (n, c, h, w))
    o, i = (c, oc // g) if tr else (oc, c // g)
    wt = wt.reshape((o, i, kw) if one_d else (o, i, kh, kw))
    return x, wt, bias


def _op_blob(tensors):
    out = bytearray()
    for case, (x, wt, bias) in zip(OPS, tensors):
        out += struct.pack("<15i", *(case[1:14] + case[15:]))
        for t in (x, wt, bias):
            if t is not None:
                out += struct.pack("<%df" % t.numel(), *t.flatten().tolist())
    return bytes(out)


@pytest.fixture(scope="module")
def results():
    cases = _cases()
    refused = _refused_cases()
    allc = cases + [c for c, _ in refused] + _far_below_cases()
    rng = random.Random(5)
    tensors = [_op_tensors(case, rng) for case in OPS]
    files = {"cases.bin": _blob(allc), "ops.bin": _op_blob(tensors)}
    out = run_code("unix", open(RUNNER).read(), files=files, timeout=120)
    rows = [line.split()[1:] for line in out.splitlines() if line.startswith("CASE")]
    assert len(rows) == len(allc), out[-2000:]
    # f32_conv_dw_viper.conv_dw on the cases with one input channel per group
    dw = {int(line.split()[1]): line.split()[1:] for line in out.splitlines() if line.startswith("DWCASE")}
    assert sorted(dw) == [i for i, c in enumerate(allc) if c[0][3] == 1], out[-2000:]
    ops = [line.split()[1:] for line in out.splitlines() if line.startswith("OPCASE")]
    assert len(ops) == len(OPS), out[-2000:]
    return cases, refused, rows, (tensors, ops), dw


def test_terms_far_below_the_largest_may_be_dropped(results):
    _, _, rows, _, _ = results
    far = _far_below_cases()
    for case, (_, ret, *words) in zip(far, rows[len(rows) - len(far) :]):
        assert ret == "0"
        largest = max(abs(a * b) for a, b in zip(case[1], case[2]))
        got = struct.unpack("<f", struct.pack("<I", int(words[0], 16)))[0]
        want = math.fsum([a * b for a, b in zip(case[1], case[2])] + case[3])
        assert abs(got - want) < largest * 2.0**-48, (case, got, want)


def test_convolutions_are_the_exact_sum_rounded_once(results):
    cases, _, rows, _, dw = results
    checked = differ = 0
    pairs = list(zip(cases, rows)) + [(cases[i], dw[i]) for i in sorted(dw) if i < len(cases)]
    assert len(pairs) > len(cases) + 10
    for case, (_, ret, *words) in pairs:
        assert ret == "0", case[0]
        want = _ref(case)
        got = [int(w, 16) for w in words]
        assert len(got) == len(want), case[0]
        for g, w in zip(got, want):
            checked += 1
            if g != w:
                differ += 1
                # one unit in the last place at most (same sign, neighbouring bit patterns)
                assert (g ^ w) >> 31 == 0 and abs(g - w) == 1, (case[0], hex(g), hex(w))
    print("f32_conv_viper: %d of %d outputs differ from the correctly rounded sum by 1 ulp" % (differ, checked))
    assert checked > 4000
    assert differ <= checked // 1000, (differ, checked)


def test_inf_and_nan_that_an_output_reads_are_refused(results):
    cases, refused, rows, _, dw = results
    at = range(len(cases), len(cases) + len(refused))
    both = [(r, rows[i]) for r, i in zip(refused, at)] + [(r, dw[i]) for r, i in zip(refused, at) if i in dw]
    assert len(both) == 2 * len(refused)
    for (case, want), (_, ret, *words) in both:
        assert ret == ("1" if want else "0"), case
        if not want:
            assert [int(w, 16) for w in words] == [_bits(3.0)] * 4


def test_convolution_out_runs_the_viper_step_and_falls_back_on_inf_and_nan(results):
    import torch

    tensors, ops = results[3]
    steps = {
        "2**14 terms": "_conv3x3",
        "depthwise": "_viper_dw",
        "NaN input depthwise": "_viper_dw",
        "inf weight depthwise 1-D": "_viper_dw",
        "-inf bias": "_viper_dw",
    }
    for case, (x, wt, bias), (_, step, locked, *words) in zip(OPS, tensors, ops):
        name, one_d, _, _, _, _, _, _, _, s, p, d, g = case[:13]
        bd = None if bias is None else bias.double()
        if case[15]:
            fn = torch.nn.functional.conv_transpose1d if one_d else torch.nn.functional.conv_transpose2d
            want = fn(x.double(), wt.double(), bd, s, p, case[16], g, d).float().flatten()
        else:
            fn = torch.nn.functional.conv1d if one_d else torch.nn.functional.conv2d
            want = fn(x.double(), wt.double(), bd, s, p, d, g).float().flatten()
        got = torch.tensor([struct.unpack("<f", struct.pack("<I", int(v, 16)))[0] for v in words])
        # a viper step is chosen for every float32 convolution with < 2**14 terms per output
        assert step == steps.get(name, "_viper"), (name, step)
        assert torch.allclose(got, want, rtol=1e-6, atol=1e-6, equal_nan=True), (name, got, want)
        if case[14]:
            assert got.isnan().any() or got.isinf().any(), name
            assert locked == "alloc", name  # the bytecode fallback ran (it boxes floats)
        else:
            assert locked == ("-" if step == "_conv3x3" else "ok"), name  # the viper steps allocate nothing


def test_the_reference_is_torchs_convolution():
    """_ref (the exact sums the viper results are held to) computes what
    torch's conv and transposed conv compute, for every geometry."""
    import torch

    rng = random.Random(3)
    for ctl in GEOMETRIES:
        n, groups, opg, cpg, h, w, kh, kw, sy, sx, py, px, dy, dx, oh, ow, has_bias, _, tr = ctl
        x = [_f32(rng.uniform(-1, 1)) for _ in range(n * groups * cpg * h * w)]
        wt = [_f32(rng.uniform(-1, 1)) for _ in range(groups * opg * cpg * kh * kw)]
        bias = [_f32(rng.uniform(-1, 1)) for _ in range(groups * opg)] if has_bias else []
        xt = torch.tensor(x, dtype=torch.float64).reshape(n, groups * cpg, h, w)
        wshape = (groups * cpg, opg, kh, kw) if tr else (groups * opg, cpg, kh, kw)
        wtt = torch.tensor(wt, dtype=torch.float64).reshape(wshape)
        bt = torch.tensor(bias, dtype=torch.float64) if has_bias else None
        if tr:
            op = (oh - ((h - 1) * sy - 2 * py + dy * (kh - 1) + 1), ow - ((w - 1) * sx - 2 * px + dx * (kw - 1) + 1))
            want = torch.nn.functional.conv_transpose2d(xt, wtt, bt, (sy, sx), (py, px), op, groups, (dy, dx))
        else:
            want = torch.nn.functional.conv2d(xt, wtt, bt, (sy, sx), (py, px), (dy, dx), groups)
        got = torch.tensor([struct.unpack("<f", struct.pack("<I", v))[0] for v in _ref((ctl, x, wt, bias))], dtype=torch.float64)
        assert got.shape == want.flatten().shape, ctl
        assert torch.allclose(got, want.flatten(), rtol=1e-6, atol=1e-6), ctl

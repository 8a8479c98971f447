"""The soft-float float32 matrix product of 64-bit viper ports
(portable_kernels/native/f32_mm_viper.py) on unix MicroPython, in one process:
results must be the exact sum rounded once to float32 (float64 reference
with math.fsum of exact products, rounded to float32) in all but rare
truncation cases, and never more than 1 ulp away; operands holding inf or
NaN must be refused (return 1) so the bytecode step runs instead."""

import math
import os
import random
import struct

import pytest

from host_tools.targets import run_code

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "device", "f32_mm_runner.py")


def _f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def _bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def _ref(case):
    batches, m, k, n, bstride, has_bias, sm, sn, a, b, bias = case
    out = []
    for bt in range(batches):
        for i in range(m):
            for j in range(n):
                terms = [a[(bt * m + i) * k + t] * b[bt * bstride + t * n + j] for t in range(k)]
                if has_bias:
                    terms.append(bias[i * sm + j * sn])
                try:
                    s = math.fsum(terms)
                    out.append(_bits(_f32(s)) if abs(s) < 3.5e38 else _bits(math.copysign(math.inf, s)))
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


def _cases():
    rng = random.Random(7)
    cases = []
    shapes = [(1, 1, 1, 1), (1, 3, 5, 7), (1, 1, 64, 192), (2, 4, 17, 3), (1, 16, 32, 1), (3, 2, 8, 8)]
    ranges = [(-3, 3), (-60, 60), (-140, -100), (100, 120)]  # normal, wide, denormal products, overflow
    for batches, m, k, n in shapes:
        for lo, hi in ranges:
            for bias_kind in ("none", "row", "full"):
                a = _values(rng, batches * m * k, lo, hi, (0.0, -0.0, 1e-45, -3e-39))
                b = _values(rng, batches * k * n, lo, hi, (0.0, 2e-40))
                has, sm, sn, bias = 0, 0, 0, []
                if bias_kind == "row":
                    has, sn, bias = 1, 1, _values(rng, n, lo, hi)
                elif bias_kind == "full" and batches == 1:
                    has, sm, sn, bias = 1, n, 1, _values(rng, m * n, lo, hi)
                cases.append((batches, m, k, n, k * n, has, sm, sn, a, b, bias))
    # exact cancellation, and a long sum near the 2**14 limit with the largest terms
    x = [_f32(rng.uniform(-1, 1)) for _ in range(8)]
    cases.append((1, 1, 16, 1, 16, 0, 0, 0, x + x, [1.0] * 8 + [-1.0] * 8, []))
    k = 0x3FFF
    cases.append((1, 1, k, 2, 2 * k, 0, 0, 0, [3.4e38] * k, [-3.4e38, 3.4e38] * k, []))
    cases.append((1, 1, k, 1, k, 0, 0, 0, [1.0] * k, [_f32(rng.uniform(0, 1)) for _ in range(k)], []))
    # inf / NaN anywhere: refused
    for bad in ("a", "b", "bias"):
        for v in (math.inf, -math.inf, math.nan):
            a, b, bias = [1.0, 2.0], [3.0, 4.0], [5.0]
            {"a": a, "b": b, "bias": bias}[bad][1 if bad != "bias" else 0] = v
            cases.append((1, 1, 2, 1, 2, 1, 0, 0, a, b, bias))
    return cases


def _blob(cases):
    out = bytearray()
    for c in cases:
        batches, m, k, n, bstride, has, sm, sn, a, b, bias = c
        out += struct.pack("<9i", batches, m, k, n, bstride, has, sm, sn, len(bias))
        for vals in (a, b, bias):
            out += struct.pack("<%df" % len(vals), *vals)
    return bytes(out)


@pytest.fixture(scope="module", params=[0, 1], ids=["row decoded", "decoded as read"])
def results(request):
    cases = _cases()
    files = {"cases.bin": _blob(cases), "as_read": str(request.param).encode()}
    out = run_code("unix", open(RUNNER).read(), files=files, timeout=120)
    rows = [line.split()[1:] for line in out.splitlines() if line.startswith("CASE")]
    assert len(rows) == len(cases), out[-2000:]
    return cases, rows, out


def test_products_are_the_exact_sum_rounded_once(results):
    cases, rows, _ = results
    checked = differ = 0
    for case, (_, ret, *words) in zip(cases, rows):
        if any(math.isinf(v) or math.isnan(v) for v in case[8] + case[9] + case[10]):
            continue
        assert ret == "0", case[:8]
        want = _ref(case)
        got = [int(w, 16) for w in words]
        for g, w in zip(got, want):
            checked += 1
            if g != w:
                differ += 1
                # one unit in the last place at most (same sign, neighbouring bit patterns)
                assert (g ^ w) >> 31 == 0 and abs(g - w) == 1, (case[:8], hex(g), hex(w))
    assert checked > 3000
    print("%d of %d results differ from the exact sum rounded once" % (differ, checked))
    assert differ <= checked // 1000, (differ, checked)


def test_inf_and_nan_operands_are_refused(results):
    cases, rows, _ = results
    refused = [ret for case, (_, ret, *_w) in zip(cases, rows) if any(math.isinf(v) or math.isnan(v) for v in case[8] + case[9] + case[10])]
    assert refused == ["1"] * 9


def test_kernels_take_the_viper_step_and_fall_back_on_inf(results):
    out = results[2]
    steps = dict(line[5:].rsplit(" ", 1) for line in out.splitlines() if line.startswith("STEP "))
    assert steps == {"mm": "_viper", "addmm": "_viper", "bmm": "_viper", "addmm alpha 2": "_addmm_rows", "mm f64": "_mm_rows"}
    values = [line for line in out.splitlines() if line.startswith("VALUES")]
    assert values == ["VALUES [6.0, 23.75, 4.5, 27.5]", "VALUES [6.0, 23.75, inf, inf]"]

"""Float32 transcendental kernels in viper soft-float on unix MicroPython
(64-bit native words): portable_kernels/f32_sigmoid_viper.py (sigmoid, tanh).
Every result within 1 ulp of the correctly rounded float32 of the exact
function (mpmath, 100 bits) over random bit patterns of every exponent, the
ranges that matter and the edges (signed zeros, denormals, saturation, exp
underflow to denormals and zero); the count differing from the bytecode step
is printed and bounded. The kernels' steps, in place with inf/NaN mid-tensor,
give the bytecode results."""

import math
import os
import random
import struct

import mpmath
import pytest

from host_tools.targets import run_code

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "device", "f32_math_runner.py")


def _f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def _from_bits(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


def _inputs():
    rng = random.Random(8)
    xs = [_from_bits(rng.getrandbits(32) & 0xFF7FFFFF) for _ in range(3000)]  # every exponent, denormals
    xs += [_f32(rng.uniform(-12.0, 12.0)) for _ in range(3000)]
    xs += [_f32(rng.uniform(-110.0, 110.0)) for _ in range(1000)]  # exp underflow: denormal and zero sigmoid
    xs += [_f32(rng.uniform(-0.25, 0.25)) for _ in range(1000)]  # tanh's two forms meet at 2**-4
    edges = [0.0, 1e-45, 2.0**-126, 2.0**-30, 2.0**-13, 2.0**-4, _f32(0.0625 * (1 - 2**-24)), 0.5, 1.0, 9.0, 9.02, 17.3, 17.4]
    edges += [87.3, 88.8, 103.2, 103.3, 104.0, _f32(127.99), 128.0, 3.4028235e38]
    xs += [_f32(v) for v in edges] + [-_f32(v) for v in edges]
    return xs


def _ulps(a, b):
    ia, ib = (struct.unpack("<i", struct.pack("<f", v))[0] for v in (a, b))
    ia = -(ia & 0x7FFFFFFF) if ia < 0 else ia
    ib = -(ib & 0x7FFFFFFF) if ib < 0 else ib
    return abs(ia - ib)


def _exact(name, x):
    mpmath.mp.prec = 100
    v = mpmath.mpf(x)
    r = 1 / (1 + mpmath.exp(-v)) if name == "sigmoid" else mpmath.tanh(v)
    return math.copysign(_f32(float(r)), x) if name == "tanh" else _f32(float(r))


@pytest.fixture(scope="module")
def output():
    xs = _inputs()
    blob = struct.pack("<%df" % len(xs), *xs)
    return run_code("unix", open(RUNNER).read(), files={"x.bin": blob}, timeout=120), xs


@pytest.mark.parametrize("name", ["sigmoid", "tanh"])
def test_within_one_ulp_of_the_correctly_rounded_result(output, name):
    out, xs = output
    rows = {line.split()[1]: line.split()[2:] for line in out.splitlines() if line.startswith("UNARY ")}
    done, n, differ, hexbits = rows[name]
    assert (int(done), int(n)) == (len(xs), len(xs))
    got = struct.unpack("<%df" % len(xs), bytes.fromhex(hexbits))
    off = [(x, g, _exact(name, x)) for x, g in zip(xs, got) if _ulps(g, _exact(name, x)) > 1]
    assert not off, off[:10]
    signs = [(x, g) for x, g in zip(xs, got) if name == "tanh" and math.copysign(1, g) != math.copysign(1, x)]
    assert not signs, signs[:10]
    ones = sum(1 for x, g in zip(xs, got) if _ulps(g, _exact(name, x)) == 1)
    print("%s: %d of %d results 1 ulp from the exact rounding, %d differ from bytecode" % (name, ones, len(xs), int(differ)))
    assert int(differ) < len(xs) // 200  # a few 1-ulp differences, not a systematic bias


def test_kernels_in_place_with_nan_and_inf(output):
    out = output[0]
    got = {line.split()[1]: line.split()[2:] for line in out.splitlines() if line.startswith("KERNEL ")}
    inf, nan = math.inf, math.nan
    vals = [0.5, -3.0, 20.0, nan, -0.0, 2.0, -inf, inf, 1e-30, -90.0]
    want = {
        "sigmoid": [1 / (1 + math.exp(-v)) if v >= 0 else (math.exp(v) / (1 + math.exp(v)) if v == v else nan) for v in vals],
        "tanh": [math.tanh(v) for v in vals],
    }
    for name, values in want.items():
        step, hexbits = got[name]
        assert step == "_viper", (name, step)
        res = struct.unpack("<%df" % len(vals), bytes.fromhex(hexbits))
        for v, r, w in zip(vals, res, values):
            if w != w:
                assert r != r, (name, v, r)
            else:
                assert r == _f32(w) and math.copysign(1, r) == math.copysign(1, w), (name, v, r, w)

"""Float32 sigmoid and tanh in Thumb-2 fixed point (portable_kernels/native/
f32_sigmoid_thumb.py) on the Cortex-M3 and Cortex-M7 boards, against float64
math on the host: within 1 ulp of the correctly rounded float32 (what its
docstring claims).
Inputs: random bit patterns (every exponent, denormals, no inf/NaN), a dense
range around 0, and the saturation and cut-over points."""

import math
import os
import random
import struct

import pytest

from host_tools.targets import run_code

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "device", "f32_sigmoid_runner.py")


def _f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def _bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def _inputs():
    rng = random.Random(7)
    xs = [_f32(rng.getrandbits(32) & 0xFF7FFFFF) for _ in range(1500)]
    xs += [_f32(_bits(rng.uniform(-20.0, 20.0))) for _ in range(1500)]
    xs += [_f32(_bits(rng.uniform(-0.1, 0.1))) for _ in range(1000)]
    for e in (2.0**-12, 2.0**-4, 16.0, 128.0, 104.0, 88.0, 1e-45, 0.0):
        for s in (1.0, -1.0):
            for k in (-1, 0, 1):
                xs.append(_f32(max(0, _bits(e) + k)) * s)
    return xs


def _ref(x, op):
    if op == 1:
        return math.tanh(x)
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def _ulps(got_bits, want):
    wb = _bits(want)  # the correctly rounded float32 (round to nearest of the float64)
    if (got_bits ^ wb) >> 31:
        return abs(_f32(got_bits) - want) / 2.0**-149
    return abs(got_bits - wb)


@pytest.mark.parametrize("target", ["cortex-m3", "cortex-m7"])
def test_sigmoid_and_tanh_against_float64(target):
    xs = _inputs()
    out = run_code(target, open(RUNNER).read(), files={"xs.bin": struct.pack("<%df" % len(xs), *xs)}, timeout=120)
    lines = {line.split()[0] + line.split()[1]: line.split() for line in out.splitlines() if line.startswith(("OP ", "STOP "))}
    assert lines["STOP2"] == ["STOP", "2", "2"], out[-500:]
    for op in (0, 1):
        _, _, done, hexed = lines["OP%d" % op]
        assert int(done) == len(xs)
        got = struct.unpack("<%dI" % len(xs), bytes.fromhex(hexed))
        for x, g in zip(xs, got):
            want = _ref(x, op)
            u = _ulps(g, want)
            assert u <= 1, (target, op, x, _f32(g), want, u)


@pytest.mark.parametrize("target", ["cortex-m3", "cortex-m7"])
def test_kernel_steps_stop_at_nan_and_the_tail_finishes(target):
    """op_sigmoid's and op_tanh's steps on the board (f32_sigmoid_thumb's own on
    the Cortex-M3; on the Cortex-M7 f32_sigmoid_fpu's, which does all): elements before the NaN from the fast step, the rest from
    the bytecode tail, in place."""
    xs = _inputs()
    out = run_code(target, open(RUNNER).read(), files={"xs.bin": struct.pack("<%df" % len(xs), *xs)}, timeout=120)
    got = {line.split()[1]: line.split()[2:] for line in out.splitlines() if line.startswith("KERNEL ")}
    assert sorted(got) == ["sigmoid", "tanh"], out[-500:]
    vals = [0.0, 1.0, -2.0, 0.5, math.nan, 3.0, -math.inf, 20.0, -0.25]
    for op, what in ((0, "sigmoid"), (1, "tanh")):
        step, hexed = got[what]
        if target == "cortex-m3":
            assert step == what, (what, step)
        ys = struct.unpack("<9f", bytes.fromhex(hexed))
        for x, y in zip(vals, ys):
            if math.isnan(x):
                assert math.isnan(y), (what, x, y)
            elif math.isinf(x):
                assert y == (0.0 if op == 0 else -1.0), (what, x, y)
            else:
                assert abs(y - _ref(x, op)) <= 2e-7 * abs(_ref(x, op)) + 1e-30, (what, x, y)

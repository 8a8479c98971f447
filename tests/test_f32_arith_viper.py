"""Float32 add / sub / mul in soft-float: viper (portable_kernels/native/f32_arith_viper.py,
64-bit native ports) on unix MicroPython, Thumb-2 assembler (f32_arith_thumb.py)
on the Cortex-M3 board, and the FPU's (f32_arith_fpu.py) on the Cortex-M7: bit for bit the bytecode result
over pairs chosen to hit every rounding path (ties, carries into the exponent,
cancellation, denormal inputs and results, overflow, signed zeros), and the
kernels' steps in place with NaN and inf mid-row."""

import math
import os
import random
import struct

import pytest

from host_tools.targets import run_code

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "device", "f32_arith_runner.py")


def _f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def _pairs():
    rng = random.Random(11)
    xs, ys = [], []

    def add(x, y):
        xs.append(x)
        ys.append(y)

    for _ in range(4000):  # random bit patterns (no inf/NaN): every exponent, denormals
        add(_f32(rng.getrandbits(32) & 0xFF7FFFFF), _f32(rng.getrandbits(32) & 0xFF7FFFFF))
    for _ in range(4000):  # close exponents: cancellation, ties and carries
        e = rng.randint(3, 251) << 23
        add(
            _f32(e | rng.getrandbits(23) | rng.getrandbits(1) << 31),
            _f32((e + (rng.randint(-2, 2) << 23)) | rng.getrandbits(23) | rng.getrandbits(1) << 31),
        )
    for _ in range(2000):  # near 1: halfway cases of the sum and product
        m = rng.getrandbits(23)
        add(_f32(0x3F800000 | m), _f32(0x33800000 | rng.getrandbits(1) << 22 | rng.getrandbits(1) << 31))
    specials = [0.0, -0.0, 1e-45, -1e-45, 1.1754942e-38, 1.1754944e-38, 3.4028235e38, -3.4028235e38, 1.0, -1.0, 2.0**-149, 2.0**127]
    for x in specials:
        for y in specials:
            add(x, y)
    return xs, ys


@pytest.fixture(scope="module", params=["unix", "cortex-m3-large", "cortex-m7"])
def output(request):
    xs, ys = _pairs()
    blob = struct.pack("<%df" % len(xs), *xs) + struct.pack("<%df" % len(ys), *ys)
    return run_code(request.param, open(RUNNER).read(), files={"pairs.bin": blob}, timeout=300), len(xs)


def test_bit_for_bit_the_bytecode_result(output):
    out, n = output
    rows = [line.split()[1:] for line in out.splitlines() if line.startswith("OP ")]
    assert rows == [[str(op), str(n), "0", str(n)] for op in range(3)], out[-2000:]


def test_kernels_in_place_with_nan_and_inf(output):
    out = output[0]
    got = {}
    for line in out.splitlines():
        if line.startswith("KERNEL "):
            _, what, step, vals = line.split(" ", 3)
            got[what] = (step, vals)
    inf, nan = math.inf, math.nan
    want = {
        "add": [2.0, nan, inf, 4.5, 2.25, inf],
        "sub": [1.0, nan, -inf, 3.5, -1.75, -inf],
        "mul": [0.75, nan, -inf, 2.0, 0.5, nan],
    }
    for what, vals in want.items():
        step, text = got[what]
        assert step == "run_rows", (what, step)
        assert text == repr(vals).replace("inf", "inf"), (what, text, vals)


def test_flat_and_scalar_steps_with_nan_and_inf(output):
    """Whole-tensor and scalar-operand steps (their own control arrays on
    Thumb-2) stop at the first NaN / inf and the bytecode tail finishes."""
    got = {}
    for line in output[0].splitlines():
        if line.startswith("FLAT "):
            _, what, step, vals = line.split(" ", 3)
            got[what] = (step, vals)
    inf, nan = math.inf, math.nan
    want = {
        "add": [2.0, nan, inf, 4.5, 2.25, 1.0, 3.5, inf, 3.0],
        "sub": [1.0, nan, -inf, 3.5, -1.75, -1.0, 2.5, inf, -1.0],
        "mul": [0.75, nan, -inf, 2.0, 0.5, -0.0, 1.5, inf, 2.0],
        "add.Scalar": [2.0, nan, -1.5, 4.5, 0.75, 0.5, 3.5, inf, 1.5],
    }
    assert sorted(got) == sorted(want), output[0][-2000:]
    for what, vals in want.items():
        step, text = got[what]
        assert step != "run_rows", (what, step)
        assert text == repr(vals), (what, text, vals)

"""Float32 sigmoid and tanh with the Cortex-M7's double-precision FPU
(portable_kernels/native/f32_sigmoid_fpu.py, the steps op_sigmoid and op_tanh
build there) against float64 math on the host: within 1 ulp of the correctly
rounded float32, inf and NaN included (the step never stops early), in place
too, under heap_lock."""

import math
import os
import struct

from host_tools.targets import run_code
from tests.test_f32_sigmoid_thumb import _bits, _f32, _inputs, _ref, _ulps

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "device", "f32_sigmoid_fpu_runner.py")


def test_sigmoid_and_tanh_against_float64_on_cortex_m7():
    more = [math.inf, -math.inf, math.nan, _f32(0xFFC00001), 1e30, -1e30, 127.99, -127.99, 15.99, -15.99, 103.5, -103.5]
    xs = _inputs() + [_f32(_bits(v)) for v in more]  # as float32s
    out = run_code("cortex-m7", open(RUNNER).read(), files={"xs.bin": struct.pack("<%df" % len(xs), *xs)}, timeout=120)
    lines = {tuple(line.split()[:2]): line.split()[2:] for line in out.splitlines() if line.startswith(("OP ", "INPLACE "))}
    for op, what in ((0, "sigmoid"), (1, "tanh")):
        step, hexed = lines[("OP", what)]
        assert step == "True", what  # f32_sigmoid_fpu's step
        assert lines[("INPLACE", what)] == ["True"], what
        got = struct.unpack("<%dI" % len(xs), bytes.fromhex(hexed))
        for x, g in zip(xs, got):
            if math.isnan(x):
                assert _bits(x) == g, (what, x, hex(g))  # the NaN itself
                continue
            if math.isinf(x):
                want = (0.0 if x < 0 else 1.0) if op == 0 else math.copysign(1.0, x)
                assert _f32(g) == want, (what, x, _f32(g))
                continue
            want = _ref(x, op)
            u = _ulps(g, want)
            assert u <= 1, (what, x, _f32(g), want, u)

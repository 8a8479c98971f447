"""The Cortex-M7's FPU products (portable_kernels/native/f32_mm_fpu.py) on the
cases of tests/test_f32_mm_viper.py (normal, wide, denormal and overflowing
products, biases, cancellation, inf and NaN operands): every result is, bit
for bit, the bytecode's arithmetic - a float64 running sum starting from the
bias, the float32 products (exact in a double) added in order, rounded once
to float32 - NaN payloads aside; nothing is refused (IEEE inf/NaN), and the
step runs under heap_lock (tests/device/f32_mm32_runner.py)."""

import math
import struct

import numpy as np
from test_f32_mm_viper import _cases
from test_f32_mm_viper32 import _run, _zero_cases


def _double_sum(case):
    batches, m, k, n, bstride, has_bias, sm, sn, a, b, bias = case
    out = []
    with np.errstate(over="ignore", invalid="ignore"):
        for bt in range(batches):
            for i in range(m):
                for j in range(n):
                    s = bias[i * sm + j * sn] if has_bias else 0.0
                    for t in range(k):
                        s += a[(bt * m + i) * k + t] * b[bt * bstride + t * n + j]
                    out.append(struct.unpack("<I", np.float32(s).tobytes())[0])
    return out


def test_fpu_products_are_the_float64_running_sum_rounded_once():
    cases, rows, _ = _run("cortex-m7", "f32_mm_fpu")
    assert len(cases) == len(_cases() + _zero_cases())
    checked = 0
    for case, (_, ret, _us, *words) in zip(cases, rows):
        assert ret == "0", case[:8]
        for got, want in zip([int(w, 16) for w in words], _double_sum(case)):
            checked += 1
            if math.isnan(struct.unpack("<f", struct.pack("<I", want))[0]):
                assert got & 0x7F800000 == 0x7F800000 and got & 0x7FFFFF, (case[:8], hex(got))
            else:
                assert got == want, (case[:8], hex(got), hex(want))
    assert checked > 3000


def test_kernels_take_the_fpu_assembler_step():
    """mm, addmm and bmm on the Cortex-M7: f32_mm_fpu's own assembler step
    (prepare(): no bytecode call per product, no fallback needed), with
    IEEE results for an inf operand."""
    _, _, out = _run("cortex-m7", "f32_mm_fpu")
    steps = dict(line[5:].rsplit(" ", 1) for line in out.splitlines() if line.startswith("STEP "))
    assert steps == {"mm": "asm", "addmm": "asm", "bmm": "asm", "addmm alpha 2": "_addmm_rows", "mm f64": "_mm_rows"}, out[-1500:]
    values = [line for line in out.splitlines() if line.startswith("VALUES")]
    assert values == ["VALUES [6.0, 23.75, 4.5, 27.5]", "VALUES [6.0, 23.75, inf, inf]"]

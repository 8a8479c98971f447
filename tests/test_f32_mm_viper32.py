"""The soft-float float32 matrix products of 32-bit native ports,
portable_kernels/native/f32_mm_viper32.py (viper) and native/f32_mm_thumb.py (Thumb-2
assembler), on the emulated Cortex-M3 board and the Thumb-2 one on the
Cortex-M7 too, bit for bit the M3's words (the viper one also on unix
MicroPython, whose 64-bit words must not change its results), one process
each: the cases of tests/test_f32_mm_viper.py (normal, wide,
denormal and overflowing products, biases, cancellation, k = 2**14 - 1)
must give the exact sum rounded once to float32 in all but rare truncation
cases and never more than 1 ulp away; inf/NaN operands are refused (return
1) so the bytecode step runs; the function runs under heap_lock; mm / addmm
/ bmm take the fast step wherever op_mm has one and fall back on inf."""

import math
import os

import pytest
from test_f32_mm_viper import _blob, _cases, _ref

from host_tools.targets import run_code

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "device", "f32_mm32_runner.py")
RUNS = [
    ("unix", "f32_mm_viper32"),
    ("cortex-m3-large", "f32_mm_viper32"),
    ("cortex-m3-large", "f32_mm_thumb"),
    ("cortex-m7", "f32_mm_thumb"),
]
_RAN = {}


def _zero_cases():
    """A zero next to a huge operand must not move the accumulator's scale
    (its product lies below every other term): 2**-30 * 1 + 0 * 2**127, and
    2**127 * 0 + 2**-30 * 1, with a small sum that needs all its bits."""
    x = 1.0 + 2.0**-23
    return [
        (1, 1, 2, 1, 2, 0, 0, 0, [x * 2.0**-30, 0.0], [1.0, 2.0**127], []),
        (1, 1, 2, 1, 2, 0, 0, 0, [2.0**127, x * 2.0**-30], [0.0, 1.0], []),
        (1, 1, 3, 1, 3, 0, 0, 0, [-0.0, x * 2.0**-60, 0.0], [3e38, x, -3e38], []),
    ]


def _run(target, module):
    """(cases, rows, stdout) of the runner on one target, run once per session."""
    if (target, module) not in _RAN:
        cases = _cases() + _zero_cases()
        files = {"cases.bin": _blob(cases), "module.txt": module.encode()}
        out = run_code(target, open(RUNNER).read(), files=files, timeout=300)
        rows = [line.split()[1:] for line in out.splitlines() if line.startswith("CASE")]
        assert len(rows) == len(cases), out[-2000:]
        _RAN[target, module] = cases, rows, out
    return _RAN[target, module]


@pytest.fixture(scope="module", params=RUNS, ids=["-".join(r) for r in RUNS])
def results(request):
    return ("%s %s" % request.param,) + _run(*request.param)


def test_the_cortex_m7_gives_the_cortex_m3_bits():
    """The same Thumb-2 code (armv7emdp .mpy on the M7, armv7m on the M3)
    returns the same words for every case: the products are integer code."""
    m3 = [(ret, words) for _, ret, _us, *words in _run("cortex-m3-large", "f32_mm_thumb")[1]]
    m7 = [(ret, words) for _, ret, _us, *words in _run("cortex-m7", "f32_mm_thumb")[1]]
    assert m7 == m3


def _has_special(case):
    return any(math.isinf(v) or math.isnan(v) for v in case[8] + case[9] + case[10])


def test_products_are_the_exact_sum_rounded_once(results):
    target, cases, rows, _ = results
    checked = differ = 0
    for case, (_, ret, _us, *words) in zip(cases, rows):
        if _has_special(case):
            continue
        assert ret == "0", (target, case[:8])
        got = [int(w, 16) for w in words]
        for g, w in zip(got, _ref(case)):
            checked += 1
            if g != w:
                differ += 1
                # one unit in the last place at most (same sign, neighbouring bit patterns)
                assert (g ^ w) >> 31 == 0 and abs(g - w) == 1, (target, case[:8], hex(g), hex(w))
    assert checked > 3000
    print("%s: %d of %d results differ from the exact sum rounded once" % (target, differ, checked))
    assert differ <= checked // 1000, (target, differ, checked)


def test_inf_and_nan_operands_are_refused(results):
    _, cases, rows, _ = results
    assert [row[1] for case, row in zip(cases, rows) if _has_special(case)] == ["1"] * 9


def test_kernels_take_the_viper_step_and_fall_back_on_inf(results):
    target, _, _, out = results
    steps = dict(line[5:].rsplit(" ", 1) for line in out.splitlines() if line.startswith("STEP "))
    fast = "FAST 1" in out.splitlines()
    assert fast or not target.startswith("unix"), out[-1500:]
    viper = ("_thumb" if target.startswith("cortex") else "_viper") if fast else "_mm_rows"  # _thumb: op_mm's Thumb-2 step
    if target.startswith("cortex-m7"):
        viper = "asm"  # the kernels build f32_mm_fpu's assembler step there, whichever module the runner tests
    want = {"mm": viper, "addmm": viper.replace("mm", "addmm"), "bmm": viper, "addmm alpha 2": "_addmm_rows", "mm f64": "_mm_rows"}
    assert steps == want, out[-1500:]
    values = [line for line in out.splitlines() if line.startswith("VALUES")]
    assert values == ["VALUES [6.0, 23.75, 4.5, 27.5]", "VALUES [6.0, 23.75, inf, inf]"]


def test_import_cost_is_small_on_the_board(results):
    target, _, _, out = results
    cost = int([line.split()[1] for line in out.splitlines() if line.startswith("IMPORT")][0])
    print("%s: importing the module takes %d bytes of heap" % (target, cost))
    assert cost < 8000, cost

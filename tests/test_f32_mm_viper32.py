"""The soft-float float32 matrix product of 32-bit viper ports
(portable_kernels/f32_mm_viper32.py) on the emulated Cortex-M3 board (and
on unix MicroPython, whose 64-bit words must not change its results), one
process each: the cases of tests/test_f32_mm_viper.py (normal, wide,
denormal and overflowing products, biases, cancellation, k = 2**14 - 1)
must give the exact sum rounded once to float32 in all but rare truncation
cases and never more than 1 ulp away; inf/NaN operands are refused (return
1) so the bytecode step runs; the function runs under heap_lock; mm / addmm
/ bmm still take the bytecode step on the board (f32_mm_viper32 is not
wired into op_mm yet) and fall back on inf."""

import math
import os

import pytest
from test_f32_mm_viper import _blob, _cases, _ref

from host_tools.targets import run_code

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "device", "f32_mm32_runner.py")
TARGETS = ["unix", "cortex-m3-large"]


@pytest.fixture(scope="module", params=TARGETS)
def results(request):
    cases = _cases()
    out = run_code(request.param, open(RUNNER).read(), files={"cases.bin": _blob(cases)}, timeout=300)
    rows = [line.split()[1:] for line in out.splitlines() if line.startswith("CASE")]
    assert len(rows) == len(cases), out[-2000:]
    return request.param, cases, rows, out


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
    viper = "_viper" if target == "unix" else "_mm_rows"  # op_mm takes f32_mm_viper32 once it fits the small board
    want = {"mm": viper, "addmm": viper.replace("mm", "addmm"), "bmm": viper, "addmm alpha 2": "_addmm_rows", "mm f64": "_mm_rows"}
    assert steps == want, out[-1500:]
    values = [line for line in out.splitlines() if line.startswith("VALUES")]
    assert values == ["VALUES [6.0, 23.75, 4.5, 27.5]", "VALUES [6.0, 23.75, inf, inf]"]


def test_import_cost_is_small_on_the_board(results):
    target, _, _, out = results
    cost = int([line.split()[1] for line in out.splitlines() if line.startswith("IMPORT")][0])
    print("%s: importing f32_mm_viper32 takes %d bytes of heap" % (target, cost))
    assert cost < 8000, cost

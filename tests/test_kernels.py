"""Portable kernels against torch, on CPython and under MicroPython.

Cases live in tests/kernel_cases_*.py; tests/device/kernel_runner.py runs
them. On CPython every case is its own test; on the unix and wasm
MicroPython targets the whole suite runs in one process per target, and
the integer cases marked noalloc run their step under heap_lock.
"""

import json
import os
import re

import pytest

from host_tools.targets import run_code
from mpy_et.kernels import resolve
from portable_kernels.registry import KERNELS
from tests import (
    kernel_cases,
    kernel_cases_elementwise,
    kernel_cases_layers,
    kernel_cases_logic,
    kernel_cases_math,
    kernel_cases_nn,
    kernel_cases_quant,
    kernel_cases_reduce,
    kernel_cases_resample,
    kernel_cases_shape,
    kernel_cases_shape2,
)
from tests.device import kernel_runner

CASES = kernel_cases.build(
    kernel_cases_elementwise.cases()
    + kernel_cases_nn.cases()
    + kernel_cases_shape.cases()
    + kernel_cases_layers.cases()
    + kernel_cases_resample.cases()
    + kernel_cases_shape2.cases()
    + kernel_cases_quant.cases()
    + kernel_cases_math.cases()
    + kernel_cases_logic.cases()
    + kernel_cases_reduce.cases()
)
LINES, BLOB = kernel_cases.serialize(CASES)
DECODED = [json.loads(line) for line in LINES.decode().splitlines()]
RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "device", "kernel_runner.py")


@pytest.mark.parametrize("case", DECODED, ids=[c["name"] for c in DECODED])
def test_kernel_cpython(case):
    kernel_runner.run_case(case, bytearray(BLOB))


# aten::NAME (and dim_order_ops::) live in op_NAME.py; mpy_et's own int8
# operators, mpy_et_quant::NAME, in quantized/op_NAME.py; ExecuTorch's Cortex-M
# operators, cortex_m::NAME, in cortex_m/op_NAME.py.
_MODULE_PREFIX = {"mpy_et_quant": "portable_kernels.quantized.op_", "cortex_m": "portable_kernels.cortex_m.op_"}
# Tested elsewhere: cortex_m:: bit for bit against ExecuTorch's own reference
# (tests/test_cortex_m_ops.py) and end to end on every target (test_cortex_m_e2e.py),
# _empty_dim_order (no step; out stays as planned) in test_cortex_m_e2e's programs.
# aten::sym_size.int and executorch_prim::et_view (dynamic shapes: no step) in
# tests/test_dynamic_shapes.py, with ExecuTorch's .pte on every target.
# The other executorch_prim ops, scalar ops and et_copy_index (map loops, with
# Int values written as the method runs), in tests/test_map.py, ExecuTorch's
# .pte and ours.
_CASES_ELSEWHERE = ("cortex_m::", "dim_order_ops::_empty_dim_order", "aten::sym_size.int", "executorch_prim::")
# executorch_prim's integer scalar ops live together, as in ExecuTorch's register_prim_ops.cpp.
_PRIM_SCALAR = "portable_kernels.op_prim_scalar"


def test_registry_resolves_every_kernel_by_convention():
    found = resolve(list(KERNELS), {})
    for key, (module, function) in KERNELS.items():
        name, _, overload = key.split("::")[1].partition(".")
        if key.startswith("executorch_prim::") and overload == "Scalar":
            assert module == _PRIM_SCALAR, key
        else:
            assert module == _MODULE_PREFIX.get(key.split("::")[0], "portable_kernels.op_") + name.strip("_"), key
        want = name.lstrip("_") + "_" + ("out" if overload == "out" else overload.lower()) if overload else name  # copy_: in place
        assert function == want, (key, function, want)
        assert found[key].__name__ == function, key


def test_every_registered_op_has_cases_and_error_cases():
    ops = {c.op for c in CASES if c.error is None}
    errs = {c.op for c in CASES if c.error is not None}
    keys = {k for k in KERNELS if not k.startswith(_CASES_ELSEWHERE)}
    assert keys <= ops, sorted(keys - ops)
    assert keys <= errs, sorted(keys - errs)


def test_noalloc_cases_cover_the_integer_kernels():
    ops = {c.op for c in CASES if c.noalloc}
    for op in (
        "add.out",
        "relu.out",
        "mul.out",
        "view_copy.out",
        "clone.out",
        "cat.out",
        "permute_copy.out",
        "eq.Tensor_out",
        "where.self_out",
        "div.out_mode",
        "amax.out",
    ):
        assert "aten::" + op in ops, op


# The kernel suite's case blob (~420 KB) is read in place from a board's ROMFS.
# The large Cortex-M3 runs it, and the Cortex-M7 (448 KB heap; its floats are
# doubles, its native code armv7emdp).
@pytest.mark.parametrize("target", ["unix", "wasm", "circuitpython", "cortex-m3-large", "cortex-m7"])
def test_kernels_on_micropython(target):
    files = {"kernel_runner.py": RUNNER, "kernel_cases.jsonl": LINES, "kernel_cases.bin": BLOB}
    code = "import kernel_runner\nkernel_runner.main(DATA_DIR + '/kernel_cases.jsonl', DATA_DIR + '/kernel_cases.bin')\n"
    # CircuitPython reads the ~450 KB blob into RAM (no ROMFS): 2 MiB instead of its 1 MiB default
    heap = {"heap_bytes": 2 * 1024 * 1024} if target == "circuitpython" else {}
    out = run_code(target, code, files=files, timeout=300, **heap)
    fails = [line for line in out.splitlines() if line.startswith("FAIL ")]
    m = re.search(r"SUMMARY passed=(\d+) failed=(\d+) locked=(\d+)", out)
    assert m, out[-3000:]
    assert not fails, "\n".join(fails)
    passed, failed, locked = (int(g) for g in m.groups())
    assert (passed, failed) == (len(CASES), 0)
    assert locked == sum(1 for c in CASES if c.noalloc and c.error is None), "noalloc cases did not run under heap_lock"

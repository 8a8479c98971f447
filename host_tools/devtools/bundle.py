"""Bundled programs (.bpte, ExecuTorch's BP08): write one from our export
(`mpy-et export --bundle`) and run its test cases on a target
(`mpy-et run model.bpte`). The device side is mpy_et/bundled.py; the schema
host_tools/devtools/schema/bundled_program.fbs."""

import json
import os

from host_tools.lowering import fbs
from host_tools.lowering.flatbuffer_writer import FlatbufferWriter
from host_tools.lowering.ir import SCALAR_TYPES, tensor_bytes
from mpy_et.bundled import ATOL, RTOL, BundledProgram
from mpy_et.errors import INVALID_ARGUMENT, MpyEtError

SCHEMA_PATH = os.path.join(os.path.dirname(__file__), "schema", "bundled_program.fbs")
_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(__file__)), "targets", "device", "run_bundle.py")
_CASE = "MPY_ET_CASE "
_DONE = "MPY_ET_BUNDLE_DONE"


def _value(t):
    import torch

    if not isinstance(t, torch.Tensor):
        raise MpyEtError(INVALID_ARGUMENT, "bundled values must be tensors, not %s" % type(t).__name__)
    if t.dtype not in SCALAR_TYPES:
        raise MpyEtError(INVALID_ARGUMENT, "tensor dtype %s cannot be bundled" % t.dtype)
    t = t.detach().contiguous()
    tensor = {"scalar_type": SCALAR_TYPES[t.dtype], "sizes": list(t.shape), "data": tensor_bytes(t), "dim_order": list(range(t.dim()))}
    return {"val": ("Tensor", tensor)}


def write(pte, cases, method="forward"):
    """A .bpte holding `pte` and its test cases.

    Args:
        pte: program bytes.
        cases: [(inputs, expected_outputs)], each a list of tensors (the
            program's own inputs: int8 for a program with int8 inputs).
        method: the method the cases are for.
    Returns:
        bytes.
    """
    if not cases:
        raise MpyEtError(INVALID_ARGUMENT, "a bundled program needs at least one test case")
    suite = {
        "method_name": method,
        "test_cases": [
            {"inputs": [_value(t) for t in inputs], "expected_outputs": [_value(t) for t in outputs]} for inputs, outputs in cases
        ],
    }
    root = {"version": 0, "method_test_suites": [suite], "program": bytes(pte)}
    return FlatbufferWriter(fbs.load(SCHEMA_PATH)).serialize(root)


def run_bundle(bpte, target="cpython", rtol=RTOL, atol=ATOL, methods=None, timeout=600):
    """Run every test case of a bundled program on a target.

    Args:
        bpte: path or bytes of a .bpte.
        target: one of host_tools.targets.TARGETS.
        rtol, atol: float outputs pass within atol + rtol * |expected|
            (ExecuTorch's verify_method_outputs defaults); others must be equal.
        methods: method names (default: every method with test cases).
    Returns:
        [{"method", "case", "ok", "worst"}], one per test case.
    Raises:
        MpyEtError: not a bundled program. TargetError: the target failed.
    """
    from host_tools.targets import BOARD_TARGETS, TargetError, run_code

    if not isinstance(bpte, (bytes, bytearray)):
        with open(bpte, "rb") as f:
            bpte = f.read()
    program = bytes(BundledProgram(bytes(bpte)).program_data)  # checked here: a bad file fails on the host, clearly
    job = {"bpte": "model.bpte", "rtol": rtol, "atol": atol, "methods": list(methods or [])}
    files = {"model.bpte": bytes(bpte), "job.json": json.dumps(job).encode()}
    packages = registry = None
    if target in BOARD_TARGETS:  # only the program's kernels, as host_tools.run deploys
        from host_tools.deploy.build import registry_source
        from host_tools.deploy.selective import device_modules, program_operators
        from portable_kernels.registry import KERNELS

        ops = [op for op in program_operators(program) if op in KERNELS]
        packages, registry = device_modules(ops), registry_source(ops, KERNELS, None)
    with open(_SCRIPT) as f:
        script = f.read()
    out = run_code(target, script, files, timeout=timeout, packages=packages, registry=registry)
    results = []
    for line in out.splitlines():
        if line.startswith(_CASE):
            method, case, ok, worst = line[len(_CASE) :].split(" ")
            results.append({"method": method, "case": int(case), "ok": ok == "1", "worst": None if worst == "None" else float(worst)})
    if _DONE not in out:
        raise TargetError("%s did not finish the bundled test cases:\n%s" % (target, out[-2000:]))
    return results

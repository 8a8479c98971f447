"""Bundled programs (.bpte): ExecuTorch's own bundles run on every target,
ours are read back by ExecuTorch, a wrong expected output fails."""

import pytest
import torch
from conftest import TARGETS

import mpy_et
from host_tools import export
from host_tools.cli import main
from host_tools.devtools import bundle
from host_tools.lowering import fbs
from host_tools.zoo import build
from mpy_et import bundled
from mpy_et.errors import INVALID_ARGUMENT, INVALID_PROGRAM, NOT_FOUND


def _calibration(inputs, n=8):
    g = torch.Generator().manual_seed(0)
    return [tuple(torch.randn(t.shape, generator=g) for t in inputs) for _ in range(n)]


@pytest.fixture(scope="module")
def mlp():
    """fp32 and int8 mlp programs with two test cases each (int8: the host integer reference)."""
    model, inputs = build("mlp")
    inputs = tuple(inputs)
    g = torch.Generator().manual_seed(1)
    cases_in = [inputs, tuple(torch.randn(t.shape, generator=g) for t in inputs)]
    with torch.no_grad():
        fp32 = [(list(x), [model(*x)]) for x in cases_in]
    report = {}
    q = export(model, inputs, quantize="int8", calibration=_calibration(inputs), report=report)
    with torch.no_grad():
        int8 = [(list(x), [report["reference"](*x)]) for x in cases_in]
    return model, export(model, inputs), fp32, q, int8


def _et_bundle(tmp_path, pte, cases, program=None):
    """A .bpte written by ExecuTorch's own tooling around `pte` (or its ExecutorchProgramManager)."""
    from executorch.devtools import BundledProgram
    from executorch.devtools.bundled_program.config import MethodTestCase, MethodTestSuite
    from executorch.devtools.bundled_program.serialize import serialize_from_bundled_program_to_flatbuffer

    path = tmp_path / "model.pte"
    path.write_bytes(pte)
    suites = [MethodTestSuite("forward", [MethodTestCase(list(x), list(y)) for x, y in cases])]
    bp = BundledProgram(program, suites) if program is not None else BundledProgram(None, suites, pte_file_path=str(path))
    return serialize_from_bundled_program_to_flatbuffer(bp)


def test_device_constants_match_the_schema():
    schema = fbs.load(bundle.SCHEMA_PATH)
    checked = set()
    for table, fields in schema.tables.items():
        prefix = "".join("_" + c if c.isupper() else c.upper() for c in table).lstrip("_")
        for f in fields:
            name = "%s_%s" % (prefix, f.name.upper())
            if hasattr(bundled, name):
                assert getattr(bundled, name) == 4 + 2 * f.slot, (name, f)
                checked.add(name)
            if f.type in schema.unions and hasattr(bundled, name + "_TYPE"):
                assert getattr(bundled, name + "_TYPE") == 4 + 2 * (f.slot - 1), name
                checked.add(name + "_TYPE")
    used = [n for n in dir(bundled) if n.isupper() and n.startswith(("BUNDLED_", "VALUE_", "TENSOR_", "INT_", "BOOL_", "DOUBLE_"))]
    assert set(used) == checked and len(used) == 15, (used, checked)  # every field constant was checked


def test_executorch_bundle_of_executorch_program_on_every_float_target(mlp, tmp_path):
    from executorch.exir import to_edge

    model, _, fp32, _, _ = mlp
    et = to_edge(torch.export.export(model, tuple(fp32[0][0]))).to_executorch()
    data = _et_bundle(tmp_path, et.buffer, fp32, program=et)
    for target in ("cpython", "unix", "cortex-m7"):  # float64/float32-exact ports (CircuitPython's 30-bit floats: the int8 test)
        results = bundle.run_bundle(data, target)
        assert [r["ok"] for r in results] == [True, True], (target, results)


@pytest.mark.parametrize("target", TARGETS)
def test_executorch_bundle_of_our_int8_program(mlp, target, tmp_path):
    _, _, _, q, int8 = mlp
    data = _et_bundle(tmp_path, q, int8)
    results = bundle.run_bundle(data, target)
    assert [(r["ok"], r["worst"]) for r in results] == [(True, 0.0), (True, 0.0)], (target, results)


def test_our_bundle_is_read_by_executorch_and_a_wrong_output_fails(mlp, tmp_path, capsys):
    from executorch.devtools.bundled_program.serialize import deserialize_from_flatbuffer_to_bundled_program

    _, pte, fp32, _, _ = mlp
    data = bundle.write(pte, fp32)
    back = deserialize_from_flatbuffer_to_bundled_program(data)
    assert back.program == pte and len(back.method_test_suites[0].test_cases) == 2
    assert list(back.method_test_suites[0].test_cases[1].inputs[0].val.sizes) == list(fp32[1][0][0].shape)
    b = mpy_et.bundled.BundledProgram.load(data)
    assert b.methods() == ["forward"] and b.test_cases() == 2 and bytes(b.program_data) == pte
    assert b.expected_outputs("forward", 1)[0].tolist() == [fp32[1][1][0].flatten().tolist()]
    wrong = [(fp32[0][0], fp32[0][1]), (fp32[1][0], [fp32[1][1][0] + 1e-3])]
    path = tmp_path / "wrong.bpte"
    path.write_bytes(bundle.write(pte, wrong))
    assert main(["run", str(path), "--target", "unix"]) == 1
    out = capsys.readouterr().out
    assert "forward test case 1: FAIL (max |got - expected| = 0.001)" in out and "1/2 test cases pass on unix" in out, out
    assert main(["run", str(path), "--target", "unix", "--atol", "2e-3"]) == 0  # within a looser tolerance
    assert "2/2 test cases pass" in capsys.readouterr().out


def test_export_bundle_then_run(tmp_path, capsys):
    out = tmp_path / "mlp.pte"
    assert main(["export", "--zoo", "mlp", "--quantize", "int8", "-o", str(out), "--bundle"]) == 0
    assert "wrote %s" % (tmp_path / "mlp.bpte") in capsys.readouterr().out
    assert main(["run", str(tmp_path / "mlp.bpte"), "--target", "cpython"]) == 0
    assert "1/1 test cases pass on cpython" in capsys.readouterr().out


def test_bad_bundles_are_clear_errors(mlp, tmp_path, capsys):
    _, pte, fp32, _, _ = mlp
    with pytest.raises(mpy_et.MpyEtError, match="not a bundled program") as e:
        bundled.BundledProgram.load(pte)
    assert e.value.code == INVALID_PROGRAM
    data = bundle.write(pte, fp32)
    with pytest.raises(mpy_et.MpyEtError, match="past the end") as e:
        bundled.BundledProgram.load(data[: len(data) // 2])
    b = bundled.BundledProgram.load(data)
    with pytest.raises(mpy_et.MpyEtError, match="no test cases for method 'backward'") as e:
        b.test_cases("backward")
    assert e.value.code == NOT_FOUND
    with pytest.raises(mpy_et.MpyEtError, match="test case 2 does not exist") as e:
        b.inputs("forward", 2)
    assert e.value.code == INVALID_ARGUMENT
    with pytest.raises(mpy_et.MpyEtError, match="at least one test case"):
        bundle.write(pte, [])
    path = tmp_path / "x.bpte"
    path.write_bytes(pte)
    assert main(["run", str(path), "--target", "cpython"]) == 1
    assert "is not a bundled program mpy_et can run" in capsys.readouterr().err
    assert main(["run", str(tmp_path / "missing.bpte")]) == 1
    assert "no such file" in capsys.readouterr().err

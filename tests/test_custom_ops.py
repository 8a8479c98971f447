"""Custom operators: a torch.library op with its .out variant, exported, run
with the user's device kernel (registered at load), picked up by a dist;
ExecuTorch's own .pte of the model runs on mpy_et with the same kernel."""

import os
import runpy

import pytest
import torch

from host_tools import export, run
from host_tools.custom_kernels import KernelsError, load
from mpy_et import MpyEtError, Program
from mpy_et.errors import OPERATOR_MISSING
from tests.conftest import ATOL, CIRCUITPYTHON_U, EXAMPLES

KERNELS = os.path.join(EXAMPLES, "custom_op_kernels.py")


@pytest.fixture(scope="module")
def custom():
    """(model, inputs, PyTorch's output, our .pte) of examples/custom_op.py."""
    ns = runpy.run_path(os.path.join(EXAMPLES, "custom_op.py"))
    model, inputs = ns["model"], ns["example_inputs"]
    with torch.no_grad():
        want = model(*inputs)
    return model, inputs, want, export(model, inputs, kernels=ns["kernels"])


@pytest.mark.parametrize("target", ["cpython", "unix", "circuitpython", "cortex-m3"])
def test_custom_operator_runs_with_the_users_kernel(custom, target):
    _, inputs, want, data = custom
    assert "my_ops::soft_clip.out" in Program.load(data).operator_names()
    res = run(data, inputs, target, kernels=KERNELS, repeat=1)
    atol = 32 * CIRCUITPYTHON_U if target == "circuitpython" else ATOL  # 30-bit floats, sums of 16 terms
    assert torch.allclose(res.outputs[0], want, atol=atol, rtol=atol), (target, res.outputs[0], want)


def test_missing_kernel_is_operator_missing_naming_it(custom):
    with pytest.raises(MpyEtError, match=r"my_ops::soft_clip.out \(instructions \[1\]\)") as e:
        Program.load(custom[3]).load_method()
    assert e.value.code == OPERATOR_MISSING


def test_export_without_the_kernel_names_the_operator(custom):
    from host_tools.lowering.lower import UnsupportedOps

    with pytest.raises(UnsupportedOps, match=r"my_ops::soft_clip.out"):
        export(custom[0], custom[1])


def test_bad_kernels_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "k.py"
    bad.write_text("X = 1\n")
    with pytest.raises(KernelsError, match="must define KERNELS"):
        load(str(bad))
    with pytest.raises(KernelsError, match="not a .py file"):
        load(str(tmp_path / "none.py"))


def test_executorch_pte_with_the_custom_operator_runs_on_mpy_et(custom):
    from executorch.exir import to_edge

    model, inputs, want, _ = custom
    data = to_edge(torch.export.export(model, inputs)).to_executorch().buffer
    assert "my_ops::soft_clip.out" in Program.load(data).operator_names()
    res = run(data, inputs, "cpython", kernels=KERNELS, repeat=1)
    assert torch.allclose(res.outputs[0], want, atol=ATOL), (res.outputs[0], want)


def test_dist_holds_the_custom_kernel(custom, tmp_path):
    """`mpy-et build --kernels`: the dist's registry names the custom kernel,
    so a plain load_method() finds it on the device (unix, from the dist only)."""
    from host_tools.deploy.build import build
    from host_tools.targets.run import run_dist_unix

    _, inputs, want, data = custom
    pte = tmp_path / "custom.pte"
    pte.write_bytes(data)
    dist = tmp_path / "dist"
    m = build([str(pte)], "unix-x64", str(dist), measure=False, kernels=KERNELS)
    assert "custom_op_kernels.mpy" in [f["path"] for f in m["files"]]
    res = run_dist_unix(str(dist), str(pte), inputs)
    assert torch.allclose(res.outputs[0], want, atol=ATOL), (res.outputs[0], want)

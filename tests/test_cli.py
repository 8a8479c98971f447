"""The CLI speaks to people: one clear line on stderr and a non-zero exit for
bad input, no traceback, no library warnings; --version; MicroPython found in
the environment it was installed in."""

import os
import subprocess
import sys

import pytest
from conftest import require

from host_tools import cli

UNSUPPORTED = """
import torch

class Odd(torch.nn.Module):
    def forward(self, x):
        return torch.sort(torch.cumsum(x, 0)).values

model = Odd()
example_inputs = (torch.randn(5),)
"""


def _mpy_et(*args, env=None):
    code = "import sys; from host_tools.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env)


def _one_clean_error(proc, *needles):
    assert proc.returncode != 0, proc
    assert "Traceback" not in proc.stderr and "Warning" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith("mpy-et: error: "), proc.stderr
    for needle in needles:
        assert needle in proc.stderr, (needle, proc.stderr)


def test_unsupported_operators_without_traceback_or_torch_warnings(tmp_path):
    model = tmp_path / "odd.py"
    model.write_text(UNSUPPORTED)
    proc = _mpy_et("export", str(model), "-o", str(tmp_path / "odd.pte"))
    _one_clean_error(proc, "aten::cumsum.out", "aten::sort.values", "odd.py:6")
    assert not (tmp_path / "odd.pte").exists()
    debug = _mpy_et("--debug", "export", str(model), "-o", str(tmp_path / "odd.pte"))
    assert debug.returncode != 0 and "Traceback" in debug.stderr


@pytest.fixture(scope="module")
def mlp_pte(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("cli") / "mlp.pte")
    assert cli.main(["export", os.path.join(cli._EXAMPLES, "mlp.py"), "-o", out]) == 0
    return out


def _main_error(capsys, argv):
    assert cli.main(argv) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith("mpy-et: error: ") and captured.err.count("\n") == 1, captured.err
    return captured.err


def test_missing_corrupt_and_truncated_programs(tmp_path, capsys, mlp_pte):
    assert "no such file" in _main_error(capsys, ["run", str(tmp_path / "nope.pte")])
    with open(mlp_pte, "rb") as f:
        data = f.read()
    for name, blob, want in (
        ("truncated.pte", data[: len(data) - 100], "truncated file?"),
        ("header.pte", data[:500], "truncated file?"),
        ("text.pte", b"not a program at all", "not an ExecuTorch program"),
        ("empty.pte", b"", "at least 8"),
    ):
        path = tmp_path / name
        path.write_bytes(blob)
        err = _main_error(capsys, ["run", str(path), "--target", "cpython"])
        assert str(path) in err and want in err, err


def test_model_file_problems(tmp_path, capsys):
    no_model = tmp_path / "no_model.py"
    no_model.write_text("import torch\nexample_inputs = (torch.zeros(1),)\n")
    assert "must define model" in _main_error(capsys, ["export", str(no_model)])
    broken = tmp_path / "broken.py"
    broken.write_text("raise ValueError('bad weights file')\n")
    assert "broken.py failed to run: ValueError: bad weights file" in _main_error(capsys, ["export", str(broken)])
    assert "no such file" in _main_error(capsys, ["export", str(tmp_path / "missing.py")])
    assert "is a directory" in _main_error(capsys, ["export", str(tmp_path)])


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.startswith("mpy-et ")


def test_micropython_found_next_to_the_interpreter_without_activation():
    """As an IDE or cron runs venv/bin/python: the venv's bin is not on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), "micropython")
    if not os.path.exists(beside):
        pytest.skip("this Python has no micropython script beside it (not a venv with the targets extra)")
    env = {k: v for k, v in os.environ.items() if k != "MPY_ET_MICROPYTHON"}
    env["PATH"] = "/usr/bin:/bin"
    code = "from host_tools.targets import micropython_binary; print(micropython_binary())"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert proc.stdout.strip() == beside, proc
    env["MPY_ET_MICROPYTHON"] = "/opt/own/micropython"  # the variable still wins
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert proc.stdout.strip() == "/opt/own/micropython", proc


def test_int8_export_then_run_compares_with_the_integer_reference(tmp_path, capsys):
    """`mpy-et export --quantize int8` keeps the host integer reference for
    `mpy-et run`: the program must match it exactly; the fp32 gap is shown."""
    pte = str(tmp_path / "mlp_int8.pte")
    assert cli.main(["export", "--zoo", "mlp", "--quantize", "int8", "-o", pte]) == 0
    assert "stay float: none" in capsys.readouterr().out
    assert cli.main(["run", pte, "--target", "unix", "--atol", "0", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "compared with the host integer reference" in out and "MATCH (tolerance 0)" in out, out
    assert "max |int8 - fp32 PyTorch|" in out and "execute allocated 0 B" in out, out


def test_run_on_the_emulated_cortex_m7(capsys, mlp_pte):
    """`mpy-et run --target cortex-m7`: the board's instruction count is reported."""
    require("cortex-m7")
    assert cli.main(["run", mlp_pte, "--target", "cortex-m7"]) == 0
    out = capsys.readouterr().out
    assert "MATCH" in out and "cortex-m7: " in out and " instructions per inference" in out, out


@pytest.mark.parametrize("example", ["streaming", "multi_method"])
def test_stateful_and_multi_method_examples_export_then_run(tmp_path, capsys, example):
    """A program with state or several methods: export records its calls
    (the model file's `calls`), run makes them in order against PyTorch."""
    pte = str(tmp_path / (example + ".pte"))
    assert cli.main(["export", os.path.join(cli._EXAMPLES, example + ".py"), "-o", pte]) == 0
    assert "calls recorded for `mpy-et run`" in capsys.readouterr().out
    assert cli.main(["run", pte, "--target", "cpython"]) == 0
    out = capsys.readouterr().out
    calls = 6 if example == "streaming" else 5
    assert "MATCH over %d calls" % calls in out and "call %d " % (calls - 1) in out, out


@pytest.mark.parametrize("example", ["gate", "frames_map"])
def test_control_flow_examples_export_then_run(tmp_path, capsys, example):
    """host_tools/examples/gate.py (torch.cond) and frames_map.py (map):
    `mpy-et export`, then `mpy-et run` against PyTorch."""
    pte = str(tmp_path / (example + ".pte"))
    assert cli.main(["export", os.path.join(cli._EXAMPLES, example + ".py"), "-o", pte]) == 0
    assert cli.main(["run", pte, "--target", "unix"]) == 0
    assert "MATCH" in capsys.readouterr().out

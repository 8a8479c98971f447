"""`mpy-et flash`: put a dist on a board over its serial REPL (mpremote's
transport), copying only what changed, checking every file, resuming an
interrupted copy.

For each file of the dist's manifest the board hashes its copy (sha256, in
chunks, on the board; files are read back to the host where the port has no
hashlib). Unchanged files are skipped. A changed file is written to
`<path>.part`, hashed there, then renamed into place, so an interrupted copy
never leaves a half-written module where an import would find it; the next
run finds the `.part`, checks that it is a prefix of the file and appends the
rest. Files in the dist's package directories that the manifest does not
list (an older build's kernels, a `.py` that would shadow its `.mpy`) are
removed. Last, every file is hashed again and compared with the manifest.

The board is not reset: the REPL is interrupted (Ctrl-C) and put in raw mode
as `mpremote resume` does (a soft reset would end the unix port's process).
"""

import ast
import base64
import contextlib
import hashlib
import io
import os

from host_tools.deploy.dist import read_manifest

PART = ".part"
CHUNK = 2048  # bytes per raw-REPL command, compiled on the board as a string literal
_HELPERS = """\
import os
try:
    from hashlib import sha256 as _mpyet_H
    from binascii import hexlify as _mpyet_hex
except ImportError:
    _mpyet_H = None
try:
    from binascii import a2b_base64 as _mpyet_b64
except ImportError:
    _mpyet_b64 = None
def _mpyet_st(p):
    try:
        s = os.stat(p)
    except OSError:
        return None
    if s[0] & 0x4000:
        return 'dir'
    if _mpyet_H is None:
        return [s[6], None]
    h = _mpyet_H()
    b = bytearray(512)
    with open(p, 'rb') as f:
        while True:
            n = f.readinto(b)
            if not n:
                break
            h.update(b if n == 512 else b[:n])
    return [s[6], _mpyet_hex(h.digest()).decode()]
def _mpyet_ls(d):
    try:
        return [(e[0], e[1]) for e in os.ilistdir(d)]
    except OSError:
        return []
"""


class FlashError(RuntimeError):
    """The dist could not be put on the board, or a file did not verify."""


class FlashInterrupted(FlashError):
    """The link to the board was lost part-way; running flash again resumes."""


def link_errors():
    from mpremote.transport import TransportError

    errors = (TransportError, OSError)
    with contextlib.suppress(ImportError):
        from serial import SerialException

        errors += (SerialException,)
    return errors


def connect(port, timeout=10):
    """A mpremote SerialTransport on `port` with the raw REPL entered (no reset)."""
    from mpremote.transport_serial import SerialTransport

    try:
        with contextlib.redirect_stdout(io.StringIO()):
            transport = SerialTransport(port, baudrate=115200)
            transport.enter_raw_repl(soft_reset=False, timeout_overall=timeout)
    except link_errors() as e:
        raise FlashError("cannot reach a MicroPython REPL on %s: %s" % (port, e)) from e
    return transport


def device_path(dest, path):
    return path if not dest else dest.rstrip("/") + "/" + path


class Device:
    """File operations on the board through the raw REPL."""

    def __init__(self, transport):
        self.t = transport
        self.made = set()
        self.t.exec(_HELPERS)
        # Chunks go as base64 (4/3 of the bytes) where the board can decode
        # it, else as bytes literals (up to 4x: escapes).
        self.base64 = self.t.eval("_mpyet_b64 is not None")

    def state(self, paths):
        """path -> None (absent), 'dir', or [size, sha256 hex or None]."""
        out = {}
        for i in range(0, len(paths), 16):
            batch = paths[i : i + 16]
            got = ast.literal_eval(self.t.exec("print(repr([_mpyet_st(p) for p in %r]))" % (batch,)).decode().strip())
            out.update(zip(batch, got))
        for path, st in out.items():  # no hashlib on the board: hash on the host
            if isinstance(st, list) and st[1] is None:
                st[1] = hashlib.sha256(self.t.fs_readfile(path)).hexdigest()
        return out

    def listdir(self, d):
        return ast.literal_eval(self.t.exec("print(repr(_mpyet_ls(%r)))" % d).decode().strip())

    def mkdirs(self, path):
        """Create the directories above path (a leading "/" kept)."""
        parts = path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            d = "/".join(parts[:i])
            if d and d not in self.made:
                self.t.exec("try:\n os.mkdir(%r)\nexcept OSError:\n pass" % d)
                self.made.add(d)

    def write(self, path, data, start, on_chunk=None):
        """Write data[start:] to path (appending when start > 0)."""
        self.t.exec("_mpyet_f = open(%r, %r)\n_mpyet_w = _mpyet_f.write" % (path, "ab" if start else "wb"))
        try:
            done = start
            while done < len(data):
                chunk = data[done : done + CHUNK]
                if self.base64:
                    self.t.exec("_mpyet_w(_mpyet_b64(%r))" % base64.b64encode(chunk).decode())
                else:
                    self.t.exec("_mpyet_w(%r)" % (chunk,))
                done += len(chunk)
                if on_chunk:
                    on_chunk(path, done, len(data))
        finally:
            with contextlib.suppress(*link_errors()):
                self.t.exec("_mpyet_f.close()")

    def rename(self, src, dst):
        self.t.exec("os.rename(%r, %r)" % (src, dst))

    def remove(self, path):
        self.t.exec("os.remove(%r)" % path)


def _load_dist(dist):
    manifest = read_manifest(dist)
    files = []
    for entry in manifest["files"]:
        with open(os.path.join(dist, *entry["path"].split("/")), "rb") as f:
            data = f.read()
        if hashlib.sha256(data).hexdigest() != entry["sha256"]:
            raise FlashError("%s in %s differs from its manifest entry: rebuild the dist" % (entry["path"], dist))
        files.append((entry["path"], entry["sha256"], data))
    return manifest, files


def flash(dist, port=None, dest="", transport=None, progress=None, on_chunk=None):
    """Put the dist on the board; return a report dict.

    Args:
        dist: a directory written by `mpy-et build`.
        port: serial device (used when no transport is given).
        dest: directory on the board ("" = its current directory, the root
            on a board; the process's working directory on the unix port).
        transport: an open mpremote transport in raw REPL mode.
        progress: callable(str) for progress lines.
        on_chunk: callable(path, bytes written, file size) after each chunk.
    Raises:
        FlashInterrupted: the link was lost (run again to resume).
        FlashError: a file did not verify, or the board refused a write.
    """
    say = progress or (lambda msg: None)
    _, files = _load_dist(dist)
    own = transport is None
    if own:
        transport = connect(port)
    current = None
    report = {"unchanged": [], "copied": [], "resumed": [], "removed": [], "bytes_sent": 0}
    try:
        dev = Device(transport)
        paths = [device_path(dest, p) for p, _, _ in files]
        state = dev.state(paths + [p + PART for p in paths])
        for n, ((rel, sha, data), path) in enumerate(zip(files, paths), 1):
            have = state[path]
            if isinstance(have, list) and have[1] == sha:
                report["unchanged"].append(rel)
                continue
            part = state[path + PART]
            start = 0
            if isinstance(part, list) and 0 < part[0] <= len(data) and part[1] == hashlib.sha256(data[: part[0]]).hexdigest():
                start = part[0]
            say("[%d/%d] %s %s (%d bytes)" % (n, len(files), "resume" if start else "copy", rel, len(data)))
            current = (rel, start)
            dev.mkdirs(path)
            dev.write(path + PART, data, start, on_chunk)
            got = dev.state([path + PART])[path + PART]
            if not isinstance(got, list) or got[1] != sha:
                dev.remove(path + PART)
                raise FlashError("%s: the board's copy has sha256 %s, the dist's %s (removed it; flash again)" % (rel, got and got[1], sha))
            dev.rename(path + PART, path)
            report["resumed" if start else "copied"].append(rel)
            report["bytes_sent"] += len(data) - start
            current = None
        report["removed"] = _remove_stale(dev, dest, [p for p, _, _ in files], say)
        say("verifying %d files" % len(files))
        final = dev.state(paths)
        bad = [rel for (rel, sha, _), p in zip(files, paths) if not (isinstance(final[p], list) and final[p][1] == sha)]
        if bad:
            raise FlashError("after copying, these files differ from the manifest: %s" % ", ".join(bad))
        report["verified"] = len(files)
    except link_errors() as e:
        where = " while copying %s" % current[0] if current else ""
        raise FlashInterrupted("link to the board lost%s (%s): run the same flash command again to resume" % (where, e)) from e
    finally:
        if own:
            with contextlib.suppress(Exception):
                transport.close()
    return report


def _remove_stale(dev, dest, rel_paths, say):
    """Remove files in the dist's package directories that the dist does not
    hold (and .part leftovers); return their paths."""
    keep = set(rel_paths)
    removed = []
    for d in sorted({p.rsplit("/", 1)[0] for p in rel_paths if "/" in p}):
        for name, kind in dev.listdir(device_path(dest, d)):
            rel = d + "/" + name
            if kind == 0x8000 and rel not in keep:
                say("remove %s (not in this dist)" % rel)
                dev.remove(device_path(dest, rel))
                removed.append(rel)
    top = [device_path(dest, rel) + PART for rel in rel_paths if "/" not in rel]
    for path, st in dev.state(top).items():
        if st is not None:
            dev.remove(path)
            removed.append(path)
    return removed

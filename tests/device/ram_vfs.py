# Runs on the board (MicroPython): a file system in RAM, for boards without
# one (the emulated Cortex-M3 has only ROMFS). Mounted with
#     vfs.mount(RamFS(), "/ram"); os.chdir("/ram")
# it takes `mpy-et flash` writes and serves imports, like a flash FS would,
# through MicroPython's VFS protocol (as mpremote mount's RemoteFS does).
# File data lives in one buffer given at mount, as a flash file system's data
# is not on the heap either: RamFS(uctypes.bytearray_at(addr, n)) over memory
# the heap does not use (the emulated board's idle ROMFS partition), or a
# bytearray. Many small growing bytearrays would cut a 224 KB heap into pieces
# too small for the program that runs next.
import io


class RamFile(io.IOBase):
    def __init__(self, fs, entry, mode):
        self.fs = fs
        self.entry = entry  # [offset in fs.data, length], shared with the RamFS
        self.pos = entry[1] if "a" in mode else 0
        self.text = "b" not in mode

    def readinto(self, buf):
        off, size = self.entry
        n = min(len(buf), size - self.pos)
        buf[:n] = memoryview(self.fs.data)[off + self.pos : off + self.pos + n]  # no copy
        self.pos += n
        return n

    def read(self, n=-1):
        off, size = self.entry
        end = size if n < 0 else min(size, self.pos + n)
        out = bytes(memoryview(self.fs.data)[off + self.pos : off + end])
        self.pos = end
        return out.decode() if self.text else out

    def write(self, buf):
        buf = buf.encode() if isinstance(buf, str) else buf
        self.fs.reserve(self.entry, self.pos + len(buf))
        off = self.entry[0] + self.pos
        self.fs.data[off : off + len(buf)] = buf
        self.pos += len(buf)
        if self.pos > self.entry[1]:
            self.entry[1] = self.pos
        return len(buf)

    def seek(self, offset, whence=0):
        self.pos = offset + (self.pos if whence == 1 else self.entry[1] if whence == 2 else 0)
        return self.pos

    def tell(self):
        return self.pos

    def ioctl(self, request, arg):
        return 0

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


class RamFS:
    def __init__(self, data):
        self.data = data
        self.used = 0  # bytes of data taken, from the start (removed files are not reclaimed)
        self.files = {}  # path -> [offset, length]
        self.dirs = {""}
        self.cwd = ""

    def _path(self, path):
        if not path.startswith("/"):
            path = self.cwd + "/" + path
        parts = []
        for p in path.split("/"):
            if p == "..":
                parts.pop()
            elif p and p != ".":
                parts.append(p)
        return "/".join(parts)

    def mount(self, readonly, mkfs):
        pass

    def umount(self):
        pass

    def chdir(self, path):
        self.cwd = self._path(path)

    def getcwd(self):
        return "/" + self.cwd

    def stat(self, path):
        p = self._path(path)
        if p in self.dirs:
            return (0x4000, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        if p in self.files:
            return (0x8000, 0, 0, 0, 0, 0, self.files[p][1], 0, 0, 0)
        raise OSError(2)

    def statvfs(self, path):
        return (512, 512, 1024, 512, 512, 0, 0, 0, 0, 255)

    def ilistdir(self, path):
        d = self._path(path)
        prefix = d + "/" if d else ""
        for name in self.dirs:
            if name and name.startswith(prefix) and "/" not in name[len(prefix) :]:
                yield (name[len(prefix) :], 0x4000, 0, 0)
        for name in self.files:
            if name.startswith(prefix) and "/" not in name[len(prefix) :]:
                yield (name[len(prefix) :], 0x8000, 0, self.files[name][1])

    def open(self, path, mode):
        p = self._path(path)
        if "w" in mode or ("a" in mode and p not in self.files):
            self.files[p] = [self.used, 0]
        elif p not in self.files:
            raise OSError(2)
        return RamFile(self, self.files[p], mode)

    def reserve(self, entry, size):
        """Room for `entry` to grow to `size` bytes: in place when it is the
        last file written, else moved to the end of the used data."""
        if entry[0] + entry[1] != self.used and entry[1]:
            if self.used + size > len(self.data):
                raise OSError(28)  # ENOSPC
            self.data[self.used : self.used + entry[1]] = memoryview(self.data)[entry[0] : entry[0] + entry[1]]
            entry[0] = self.used
        elif not entry[1]:
            entry[0] = self.used
        if entry[0] + size > len(self.data):
            raise OSError(28)  # ENOSPC
        self.used = max(self.used, entry[0] + size)

    def mkdir(self, path):
        p = self._path(path)
        if p in self.dirs or p in self.files:
            raise OSError(17)
        self.dirs.add(p)

    def remove(self, path):
        p = self._path(path)
        if p not in self.files:
            raise OSError(2)
        del self.files[p]

    def rename(self, old, new):
        self.files[self._path(new)] = self.files.pop(self._path(old))

# Runs on the board (MicroPython): a file system in RAM, for boards without
# one (the emulated Cortex-M3 has only ROMFS). Mounted with
#     vfs.mount(RamFS(), "/ram"); os.chdir("/ram")
# it takes `mpy-et flash` writes and serves imports, like a flash FS would,
# through MicroPython's VFS protocol (as mpremote mount's RemoteFS does).
import io


class RamFile(io.IOBase):
    def __init__(self, data, mode):
        self.data = data  # the file's bytearray, shared with the RamFS
        self.pos = len(data) if "a" in mode else 0
        self.text = "b" not in mode

    def readinto(self, buf):
        n = min(len(buf), len(self.data) - self.pos)
        buf[:n] = memoryview(self.data)[self.pos : self.pos + n]  # no copy: a 224 KB heap has no room for one
        self.pos += n
        return n

    def read(self, n=-1):
        end = len(self.data) if n < 0 else min(len(self.data), self.pos + n)
        out = bytes(self.data[self.pos : end])
        self.pos = end
        return out.decode() if self.text else out

    def write(self, buf):
        buf = buf.encode() if isinstance(buf, str) else buf
        self.data[self.pos : self.pos + len(buf)] = buf
        self.pos += len(buf)
        return len(buf)

    def seek(self, offset, whence=0):
        self.pos = offset + (self.pos if whence == 1 else len(self.data) if whence == 2 else 0)
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
    def __init__(self):
        self.files = {}
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
            return (0x8000, 0, 0, 0, 0, 0, len(self.files[p]), 0, 0, 0)
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
                yield (name[len(prefix) :], 0x8000, 0, len(self.files[name]))

    def open(self, path, mode):
        p = self._path(path)
        if "w" in mode or ("a" in mode and p not in self.files):
            self.files[p] = bytearray()
        elif p not in self.files:
            raise OSError(2)
        return RamFile(self.files[p], mode)

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

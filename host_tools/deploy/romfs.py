"""ROMFS images whose file data is aligned.

MicroPython's ROMFS (extmod/vfs_rom.c) maps files in place: a tensor read
through `memoryview(open("/rom/model.pte", "rb"))` lives wherever the file's
bytes happen to sit in flash. The .pte aligns its constants relative to the
file start, so the file data must start aligned too. mpremote's writer
(`mpremote romfs build`) packs records back to back without alignment; the
format has padding records for exactly this (the reader skips them, also
between a file's name and its data), so this writer emits them.

Lengths are written as fixed-width varints (leading 0x80 groups are valid,
as mpremote's own header uses), so every absolute offset is known while
writing and the padding is exact.
"""

import os

HEADER = b"\xd2\xcd\x31"  # the filesystem record's kind, as a 3-byte varint
_PADDING, _DATA, _DIRECTORY, _FILE = 1, 2, 4, 5
_LEN_WIDTH = 4  # up to 2**28 bytes per record


def _uint(value, width=0):
    """MicroPython's varint: 7 bits a byte, most significant first; padded
    to `width` bytes with leading zero groups when given."""
    groups = [value & 0x7F]
    rest = value >> 7
    while rest:
        groups.insert(0, rest & 0x7F)
        rest >>= 7
    if width:
        if len(groups) > width:
            raise ValueError("ROMFS record of %d bytes is too large" % value)
        groups = [0] * (width - len(groups)) + groups
    return bytes([g | 0x80 for g in groups[:-1]] + [groups[-1]])


class RomfsWriter:
    """Build an image: directory(name) ... end(), file(name, data), image()."""

    def __init__(self, align=16):
        self.align = align
        self.out = bytearray(HEADER)
        self._open = [self._length_slot()]

    def _length_slot(self):
        pos = len(self.out)
        self.out += bytes(_LEN_WIDTH)
        return pos

    def _close(self, pos):
        self.out[pos : pos + _LEN_WIDTH] = _uint(len(self.out) - pos - _LEN_WIDTH, _LEN_WIDTH)

    def _record(self, kind, name):
        self.out += _uint(kind)
        slot = self._length_slot()
        encoded = name.encode("ascii")
        self.out += _uint(len(encoded)) + encoded
        return slot

    def directory(self, name):
        self._open.append(self._record(_DIRECTORY, name))

    def end(self):
        self._close(self._open.pop())

    def file(self, name, data):
        slot = self._record(_FILE, name)
        pad = -(len(self.out) + 1 + _LEN_WIDTH) % self.align  # data starts after its record header
        if pad:
            pad += self.align if pad < 2 else 0  # a padding record is at least 2 bytes
            self.out += _uint(_PADDING) + _uint(pad - 2) + bytes(pad - 2)
        self.out += _uint(_DATA) + _uint(len(data), _LEN_WIDTH)
        assert len(self.out) % self.align == 0
        self.out += data
        self._close(slot)

    def image(self):
        if len(self._open) != 1:
            raise ValueError("%d directories left open" % (len(self._open) - 1))
        if len(self.out) % 2:  # keep the image an even number of bytes, as mpremote does
            self.out += _uint(_PADDING) + _uint(1) + b"\0"
        self._close(self._open.pop())
        return bytes(self.out)


def build_image(src_dir, align=16):
    """A ROMFS image of everything under src_dir, each file's data aligned."""
    w = RomfsWriter(align)

    def walk(path):
        for name in sorted(os.listdir(path)):
            full = os.path.join(path, name)
            if os.path.isdir(full):
                w.directory(name)
                walk(full)
                w.end()
            else:
                with open(full, "rb") as f:
                    w.file(name, f.read())

    walk(src_dir)
    return w.image()

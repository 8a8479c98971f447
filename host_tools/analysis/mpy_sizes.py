"""The bytes MicroPython's heap holds for a loaded method's objects, as its
ports lay them out: a GC block is 4 words (32 B on 64-bit unix, 16 B on a
32-bit board), an object is a few words plus what only it references.
Used by inspect (host_tools/analysis/inspect_pte.py) and the board
prediction (host_tools/analysis/board_sim.py)."""

import types
from array import array

_CALLABLES = (types.FunctionType, types.MethodType, types.BuiltinFunctionType, types.BuiltinMethodType)


class Layout:
    """Object sizes for one word size."""

    def __init__(self, word):
        self.word = word
        self.block = 4 * word

    def blocks(self, n):
        return (n + self.block - 1) // self.block * self.block

    def size(self, obj, seen, skip):
        """Bytes held for obj and what only it references (objects in
        `seen` or `skip` are counted elsewhere)."""
        w = self.word
        if id(obj) in seen or id(obj) in skip or obj is None or isinstance(obj, (bool, int, str, type)):
            return 0
        if isinstance(obj, _CALLABLES):
            return self._callable(obj, seen, skip)
        seen.add(id(obj))
        if isinstance(obj, float):
            return self.block
        if isinstance(obj, tuple):
            return self.blocks(w * (2 + len(obj))) + sum(self.size(x, seen, skip) for x in obj)
        if isinstance(obj, list):
            # Index tables (ints) are built by appending: MicroPython doubles a
            # list's capacity from 4 as it grows. Value lists are made at their size.
            cap = len(obj)
            if obj and all(type(x) is int for x in obj):
                cap = 4
                while cap < len(obj):
                    cap *= 2
            return self.blocks(w * 4) + self.blocks(w * cap) + sum(self.size(x, seen, skip) for x in obj)
        if isinstance(obj, memoryview):
            return self.blocks(w * 4)  # a typed view (uctypes array on MicroPython); its bytes live elsewhere
        if isinstance(obj, (bytes, bytearray)):
            return self.blocks(w * 4) + self.blocks(len(obj))
        if isinstance(obj, array):
            return self.blocks(w * 4) + self.blocks(obj.itemsize * len(obj))
        if isinstance(obj, range):
            return self.blocks(w * 4)
        if hasattr(obj, "__dict__"):  # an instance: object plus its attribute table
            d = vars(obj)
            return self.blocks(w * 4) + self.blocks(2 * w * 7) + sum(self.size(x, seen, skip) for x in d.values())
        return self.blocks(w * 4)

    def _callable(self, obj, seen, skip):
        """A module's function costs nothing here (its module is counted);
        a closure is an object of 3 + n words and a 2-word cell per
        captured variable, keeping what they capture; a bound method is 3
        words and its instance."""
        w = self.word
        cells = getattr(obj, "__closure__", None)
        if cells:
            seen.add(id(obj))
            total = self.blocks(w * (3 + len(cells)))
            for c in cells:
                total += self.blocks(2 * w)
                try:
                    total += self.size(c.cell_contents, seen, skip)
                except ValueError:  # an empty cell
                    pass
            return total
        if isinstance(obj, types.MethodType):
            owner = obj.__self__
            seen.add(id(obj))
            return self.blocks(w * 3) + self.size(owner, seen, skip)
        return 0


UNIX = Layout(8)  # the unix x64 port
BOARD = Layout(4)  # 32-bit ports: Arm boards, CircuitPython, WebAssembly

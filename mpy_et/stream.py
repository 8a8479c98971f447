"""Models larger than RAM: constants stay in the .pte file and are read into
one preallocated scratch buffer just before the instruction that needs them.

Load time (Method, with a Program opened with stream=True): every constant
tensor an instruction reads is noted with the instructions using it; each
gets a place in the scratch buffer so that constants used by the same
instruction, or alive over overlapping instruction ranges, never share bytes
(first fit, in order of first use). Execute time: a streamed instruction runs
f.seek + f.readinto for each of its constants, then its kernel. readinto into
a memoryview made at load allocates nothing.
"""

from mpy_et.errors import MEMORY_ALLOCATION_FAILED, MpyEtError

_ALIGN = 16


class StreamPlan:
    def __init__(self):
        self.uses = {}  # value index -> [file offset, nbytes, first instruction, last instruction]
        self.offsets = {}  # value index -> offset in scratch
        self.scratch = None

    def note(self, value, file_offset, nbytes, i):
        u = self.uses.get(value)
        if u is None:
            self.uses[value] = [file_offset, nbytes, i, i]
        else:
            u[3] = i

    def layout(self, what):
        """Place every constant in scratch; allocate it. Returns its size."""
        placed = []  # (offset, end, first, last)
        size = 0
        for value in sorted(self.uses, key=lambda v: self.uses[v][2]):
            _, n, first, last = self.uses[value]
            off = 0
            for o, e, f, la in sorted(placed):
                if f <= last and first <= la and off < e and o < off + n:
                    off = (e + _ALIGN - 1) // _ALIGN * _ALIGN
            placed.append((off, off + n, first, last))
            self.offsets[value] = off
            size = max(size, off + n)
        try:
            self.scratch = bytearray(size)
        except MemoryError:
            raise MpyEtError(MEMORY_ALLOCATION_FAILED, "%s: cannot allocate %d bytes of scratch for streamed constants" % (what, size))
        return size

    def reads(self, values):
        """((file offset, memoryview into scratch), ...) for the constants in `values`."""
        out = []
        mv = memoryview(self.scratch)
        for v in values:
            if v in self.offsets:
                off, n = self.offsets[v], self.uses[v][1]
                out.append((self.uses[v][0], mv[off : off + n]))
        return tuple(out)

    def wrap(self, f, reads, step):
        """The (step, ctx) that reads `reads` from file f, then runs `step`."""
        return streamed, (f, reads, step[0], step[1])


def streamed(ctx):
    """Step: read this instruction's constants from the file, then run its kernel."""
    f, reads, step, kctx = ctx
    for off, view in reads:
        f.seek(off)
        f.readinto(view)
    step(kctx)

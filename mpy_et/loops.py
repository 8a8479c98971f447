"""Loops: torch.ops.higher_order.map as ExecuTorch's emitter writes it
(issue 22), checked at load so that every loop ends.

    L:  aten::select_copy.int_out(xs, 0, k, x)          k: the loop's counter, an Int value
        <the body>
        executorch_prim::et_copy_index.tensor(out, y, k)  out[k] = y
        executorch_prim::add.Scalar(k, 1, k)
        executorch_prim::eq.Scalar(k, n, done)
    J:  JumpFalseCall(done, L)                           the one backward jump
        executorch_prim::sub.Scalar(k, n, k)             k back to 0 for the next call

A backward jump is accepted in this shape only: its condition is written
once, by an eq.Scalar of the counter and n inside the loop; the counter
starts at 0 and is written by one add.Scalar(k, 1, k) before the eq, by the
sub.Scalar right after the jump, and nowhere else; n is an Int known at load
(a constant or a static sym_size), at least 1, that nothing writes; no other
jump enters or leaves the loop or skips its add or eq. The body then runs
exactly n times each time the loop is reached. Method.execute sets the
counters to 0 first (a call that failed mid-loop leaves one behind).

Int and Bool values that executorch_prim ops write are Cells (an array
holding the value, written when the method runs): the prim ops,
select_copy and et_copy_index read them in their steps. A counter's Cell
carries the values it can hold at the instruction being prepared (lo, hi),
so those kernels check their indices at load, not in the loop.

Imported only by methods with executorch_prim scalar ops or backward jumps.
"""

from array import array

from mpy_et.errors import INVALID_PROGRAM, NOT_SUPPORTED, MpyEtError

_ADD = "executorch_prim::add.Scalar"
_SUB = "executorch_prim::sub.Scalar"
_EQ = "executorch_prim::eq.Scalar"
_COPY_INDEX = "executorch_prim::et_copy_index.tensor"
_SYM_SIZE = "aten::sym_size.int"
_VIEW = "executorch_prim::et_view.default"
# Kernels that take a Cell argument (the prim scalar ops take them too).
_TAKE_CELLS = ("aten::select_copy.int_out", _COPY_INDEX)


class Cell:
    """An Int or Bool value written as the method runs: v[0]. lo, hi: the
    values it can hold at the instruction being prepared (None: unknown)."""

    def __init__(self, value):
        self.v = array("i", (int(value),))
        self.lo = self.hi = None


def index_range(v, n, what):
    """(lo, hi) of a Cell used as an index into n rows, checked at load."""
    if not isinstance(v, Cell):
        raise MpyEtError(INVALID_PROGRAM, "%s: index %r is not an Int" % (what, v))
    if v.lo is None:
        raise MpyEtError(NOT_SUPPORTED, "%s: the index is computed as the method runs and is not a loop's counter" % what)
    if v.lo < 0 or v.hi >= n:
        raise MpyEtError(INVALID_PROGRAM, "%s: the loop's counter runs %d..%d, out of range for %d rows" % (what, v.lo, v.hi, n))
    return v.lo, v.hi


def _fail(what, message):
    raise MpyEtError(NOT_SUPPORTED, "%s: %s (mpy_et runs loops only as ExecuTorch writes torch.ops.higher_order.map)" % (what, message))


class Loops:
    """The executorch_prim ops and jumps of one method, noted in load pass 0
    and checked at its end (check); then, in pass 1, the Cells (cells) and
    the counters' ranges at each instruction (at)."""

    def __init__(self):
        self.writes = {}  # value index -> [(instruction, op, args)] of the prim ops writing it
        self.jumps = ()  # (instruction, destination, condition value index) of every JumpFalseCall
        self.filled = []  # et_copy_index's copy_to value indices: static at the size the program plans
        self.loops = []  # [start, jump, add, counter Cell, n value index, n]
        self.counters = ()  # the counters' arrays (Method.execute sets them to 0)

    def note(self, i, name, args):
        """Pass 0: an executorch_prim op at instruction i."""
        if name == _COPY_INDEX:
            if len(args) == 3:
                self.filled.append(args[0])
        elif name != _VIEW and args:
            w = self.writes.get(args[-1])
            if w is None:
                self.writes[args[-1]] = [(i, name, args)]
            else:
                w.append((i, name, args))

    def check(self, values):
        """End of pass 0: every backward jump is a map loop; make the Cells."""
        writes = self.writes
        for j, start, c in self.jumps:
            if start > j:
                continue
            what = "instruction %d (JumpFalseCall back to instruction %d)" % (j, start)
            w = writes.get(c, ())
            if len(w) != 1 or w[0][1] != _EQ or not start <= w[0][0] < j or len(w[0][2]) != 3:
                _fail(what, "its condition values[%d] must be written once, by executorch_prim::eq.Scalar inside the loop" % c)
            e, k, m = w[0][0], w[0][2][0], w[0][2][1]
            inside = [x for x in writes.get(k, ()) if start <= x[0] <= j]
            after = [x for x in writes.get(k, ()) if not start <= x[0] <= j]
            if len(inside) != 1 or inside[0][1] != _ADD or inside[0][0] > e or tuple(inside[0][2]) != (k, inside[0][2][1], k):
                _fail(what, "its counter values[%d] must be written once in the loop, by add.Scalar(counter, 1, counter) before the eq" % k)
            one = inside[0][2][1]
            if one in writes or type(values[one]) is not int or values[one] != 1:
                _fail(what, "its counter must step by the constant 1")
            if len(after) != 1 or after[0][0] != j + 1 or after[0][1] != _SUB or tuple(after[0][2]) != (k, m, k):
                _fail(what, "its counter must be reset by sub.Scalar(counter, n, counter) right after the jump, and written nowhere else")
            if type(values[k]) is not int or values[k] != 0 or m in writes:
                _fail(what, "its counter must start at 0 and n (values[%d]) must not be computed as the method runs" % m)
            self.loops.append([start, j, inside[0][0], k, m, e])
        for loop in self.loops:
            start, j, a, k, m, e = loop
            for s, d, _ in self.jumps:
                if s == j:
                    continue
                if (start <= s <= j) != (start < d <= j):
                    _fail(
                        "instruction %d (JumpFalseCall to instruction %d)" % (s, d), "a jump into or out of the loop at %d..%d" % (start, j)
                    )
                if s < d and (s < a < d or s < e < d):
                    _fail("instruction %d (JumpFalseCall to instruction %d)" % (s, d), "a jump over the loop's counter step")
            loop[5] = 0  # n: read at the loop's start in pass 1
        for a in writes:
            v = values[a]
            if not isinstance(v, int) and v is not True and v is not False:  # Int and Bool values only
                raise MpyEtError(INVALID_PROGRAM, "values[%d]: an executorch_prim op writes it; it must be an Int or Bool" % a)
            values[a] = Cell(v)
        self.counters = tuple(values[loop[3]].v for loop in self.loops)
        for loop in self.loops:
            loop[3] = values[loop[3]]

    def at(self, i, name, vals, values):
        """Pass 1, before instruction i's kernel: the counters' ranges there;
        Cells go only to kernels that read them when they run."""
        for loop in self.loops:
            start, j, a, cell = loop[0], loop[1], loop[2], loop[3]
            if loop[5] == 0 and i >= start:  # the first instruction prepared in the loop (pass 1 goes in order)
                n = values[loop[4]]
                if not isinstance(n, int) or isinstance(n, bool) or n < 1:
                    raise MpyEtError(
                        NOT_SUPPORTED, "instruction %d: a loop over %r items; mpy_et runs map over a static length of at least 1" % (i, n)
                    )
                loop[5] = n
            n = loop[5]
            if i < start or i > j + 1:
                cell.lo = cell.hi = 0
            elif i == j + 1:
                cell.lo = cell.hi = n
            elif i <= a:
                cell.lo, cell.hi = 0, n - 1
            else:
                cell.lo, cell.hi = 1, n
        if name in _TAKE_CELLS or name.startswith("executorch_prim::"):
            return
        for v in vals:
            if isinstance(v, Cell):
                raise MpyEtError(
                    NOT_SUPPORTED,
                    "instruction %d (%s): an Int computed as the method runs (a loop's counter); this kernel takes constants only"
                    % (i, name),
                )

    def prepared(self, name, vals, args, values):
        """Pass 1, after a kernel: a static sym_size's result is known at load."""
        if name == _SYM_SIZE and len(args) == 3 and not isinstance(values[args[2]], Cell):
            values[args[2]] = vals[0].sizes[vals[1] % len(vals[0].sizes)]

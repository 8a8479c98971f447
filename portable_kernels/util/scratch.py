"""Scratch shared by every step of every method: lists of Python floats,
word buffers and the int8 convolutions' row buffers.

Steps run one at a time, and every step that borrows a scratch list leaves it
all 0.0 when it ends (float_loops.release), so one list per role serves all of them:
a model keeps the scratch of its largest layer instead of the sum over its
layers (MobileNetV1 0.25 on the unix port: the heap kept at load, arena included,
goes from 541 KB to 351 KB).
A step that needs two lists at once asks for two different roles.
"""

from array import array

_POOLS = {}
_WORDS = {}
_ROWS = {}


def floats(n, role):
    """A list of at least n float slots, all 0.0, shared by every step asking
    for `role` (load time; grows the shared list in place when needed)."""
    pool = _POOLS.get(role)
    if pool is None:
        pool = _POOLS[role] = []
    if len(pool) < n:
        pool.extend([0.0] * (n - len(pool)))
    return pool


def reset():
    """Forget the shared lists (once no loaded method uses them any more):
    the next load allocates what its own layers need."""
    _POOLS.clear()
    _WORDS.clear()


def words(n, role):
    """A bytearray of at least n 32-bit words shared by every step asking for
    `role` (load time; grows in place). Viper steps take its address at every
    call, so growing it later is safe; steps need not clear it."""
    buf = _WORDS.get(role)
    if buf is None:
        buf = _WORDS[role] = bytearray(4 * n)
    elif len(buf) < 4 * n:
        buf.extend(bytes(4 * n - len(buf)))
    return buf


def rows(role, n):
    """The int8 convolutions' row buffer `role`, at least n long, shared by
    every step (steps run one at a time and each overwrites what it reads):
    "col" is a bytearray, every other role an array of int32 (load time;
    grown in place, so the heap keeps the largest layer's, not the sum).
    reset() leaves them: a later load reuses them, grown where it needs more."""
    buf = _ROWS.get(role)
    if buf is None:
        buf = _ROWS[role] = bytearray(0) if role == "col" else array("i")
    if len(buf) < n:
        buf.extend(bytearray(n - len(buf)) if role == "col" else array("i", [0] * (n - len(buf))))
    return buf


def derived(t, key, make):
    """make(), computed once per tensor `t` and `key` (load time): a
    re-laid-out copy of a constant that several instructions read (a
    recurrent layer's weights, once per time step) is made once and shared.
    Keys compare by value (==), so equal parameters share, whatever object
    holds them. Kept on the tensor itself, so it lives exactly as long as
    the method."""
    got = getattr(t, "derived", None)
    if got is None:
        got = t.derived = []
    for i in range(0, len(got), 2):
        if got[i] == key:
            return got[i + 1]
    value = make()
    got.append(key)
    got.append(value)
    return value

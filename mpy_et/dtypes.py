"""Scalar types: ExecuTorch/torch numbering, element size and access codes."""

from mpy_et.port import const

BYTE = const(0)
CHAR = const(1)
SHORT = const(2)
INT = const(3)
LONG = const(4)
HALF = const(5)
FLOAT = const(6)
DOUBLE = const(7)
BOOL = const(11)

# scalar type -> (name, element bytes, struct/array/memoryview format)
INFO = {
    BYTE: ("uint8", 1, "B"),
    CHAR: ("int8", 1, "b"),
    SHORT: ("int16", 2, "h"),
    INT: ("int32", 4, "i"),
    LONG: ("int64", 8, "q"),
    FLOAT: ("float32", 4, "f"),
    DOUBLE: ("float64", 8, "d"),
    BOOL: ("bool", 1, "B"),
}

FLOATING = (FLOAT, DOUBLE)


def name(dtype):
    """Readable name of a scalar type number, for messages."""
    info = INFO.get(dtype)
    return info[0] if info else "scalar type %d" % dtype


def itemsize(dtype):
    return INFO[dtype][1]

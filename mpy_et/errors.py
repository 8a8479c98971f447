"""The runtime's one exception type and ExecuTorch's error codes."""

from mpy_et.port import const

OK = const(0x00)
INTERNAL = const(0x01)
INVALID_STATE = const(0x02)
NOT_SUPPORTED = const(0x10)
NOT_IMPLEMENTED = const(0x11)
INVALID_ARGUMENT = const(0x12)
INVALID_TYPE = const(0x13)
OPERATOR_MISSING = const(0x14)
NOT_FOUND = const(0x20)
MEMORY_ALLOCATION_FAILED = const(0x21)
ACCESS_FAILED = const(0x22)
INVALID_PROGRAM = const(0x23)
OUT_OF_RESOURCES = const(0x25)

_NAMES = {
    0x00: "Ok",
    0x01: "Internal",
    0x02: "InvalidState",
    0x10: "NotSupported",
    0x11: "NotImplemented",
    0x12: "InvalidArgument",
    0x13: "InvalidType",
    0x14: "OperatorMissing",
    0x20: "NotFound",
    0x21: "MemoryAllocationFailed",
    0x22: "AccessFailed",
    0x23: "InvalidProgram",
    0x25: "OutOfResources",
}


class MpyEtError(Exception):
    """Raised by load, set_input and execute.

    `code` is ExecuTorch's numeric error code; `str(e)` starts with its name,
    e.g. "InvalidProgram (0x23): values[12]: ...".
    """

    def __init__(self, code, message):
        super().__init__("%s (0x%02x): %s" % (_NAMES.get(code, "Error"), code, message))
        self.code = code
        self.message = message

    @property
    def name(self):
        return _NAMES.get(self.code, "Error")

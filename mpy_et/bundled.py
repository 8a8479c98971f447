"""BundledProgram (.bpte, ExecuTorch's BP08): a program and, per method, test
cases (inputs and expected outputs), to check on the device that it runs
the program right.

    from mpy_et.bundled import BundledProgram, verify_outputs
    bundle = BundledProgram.load("model.bpte")   # path, bytes or memoryview; never copied
    method = bundle.program().load_method("forward")
    for i in range(bundle.test_cases("forward")):
        for j, t in enumerate(bundle.inputs("forward", i)):
            method.set_input(j, t)
        method.execute()
        ok, worst = verify_outputs(method, bundle.expected_outputs("forward", i))

The program and the test tensors are views into the bundle's bytes. Field
constants: vtable offsets of host_tools/devtools/schema/bundled_program.fbs
(tests/test_bundle.py checks them against it). Not the hot path: reading
and comparing allocate.
"""

from mpy_et import dtypes
from mpy_et.errors import INVALID_ARGUMENT, INVALID_PROGRAM, NOT_FOUND, NOT_SUPPORTED, MpyEtError
from mpy_et.flatbuf import FlatReader
from mpy_et.port import const
from mpy_et.program import Program, _read_source
from mpy_et.tensor import Tensor

FILE_IDENTIFIER = b"BP08"
RTOL = 1e-5  # ExecuTorch's verify_method_outputs defaults
ATOL = 1e-8

BUNDLED_PROGRAM_METHOD_TEST_SUITES = const(6)
BUNDLED_PROGRAM_PROGRAM = const(8)
BUNDLED_METHOD_TEST_SUITE_METHOD_NAME = const(4)
BUNDLED_METHOD_TEST_SUITE_TEST_CASES = const(6)
BUNDLED_METHOD_TEST_CASE_INPUTS = const(4)
BUNDLED_METHOD_TEST_CASE_EXPECTED_OUTPUTS = const(6)
VALUE_VAL_TYPE = const(4)
VALUE_VAL = const(6)
TENSOR_SCALAR_TYPE = const(4)
TENSOR_SIZES = const(6)
TENSOR_DATA = const(8)
TENSOR_DIM_ORDER = const(10)
INT_INT_VAL = const(4)
BOOL_BOOL_VAL = const(4)
DOUBLE_DOUBLE_VAL = const(4)
# ValueUnion tags
_TENSOR = const(1)
_INT = const(2)
_BOOL = const(3)
_DOUBLE = const(4)


class BundledProgram:
    """A loaded .bpte. Use BundledProgram.load()."""

    def __init__(self, buf):
        self.buf = buf
        if len(buf) < 8 or bytes(buf[4:8]) != FILE_IDENTIFIER:
            raise MpyEtError(
                INVALID_PROGRAM, "not a bundled program: identifier %r at bytes 4..7, expected %r" % (bytes(buf[4:8]), FILE_IDENTIFIER)
            )
        r = self.reader = FlatReader(buf, len(buf))
        root = r.table(r.u32(0, "root offset"), "BundledProgram")
        start, n = r.vector(root, BUNDLED_PROGRAM_PROGRAM, 1, "BundledProgram.program")
        if not n:
            raise MpyEtError(INVALID_PROGRAM, "bundled program holds no program")
        self.program_data = memoryview(buf)[start : start + n]
        self._suites = {}
        start, n = r.vector(root, BUNDLED_PROGRAM_METHOD_TEST_SUITES, 4, "BundledProgram.method_test_suites")
        for i in range(n):
            suite = r.table_at(start, i, "method_test_suites")
            self._suites[r.string(suite, BUNDLED_METHOD_TEST_SUITE_METHOD_NAME, "method_name")] = suite

    @staticmethod
    def load(source):
        """From a path, bytes, bytearray or memoryview (read in place from ROMFS)."""
        return BundledProgram(_read_source(source))

    def program(self):
        """The bundled program (mpy_et.Program over the bundle's bytes)."""
        return Program.load(self.program_data)

    def methods(self):
        return list(self._suites)

    def _cases(self, method):
        suite = self._suites.get(method)
        if suite is None:
            raise MpyEtError(NOT_FOUND, "bundled program has no test cases for method %r (it has %s)" % (method, self.methods()))
        return self.reader.vector(suite, BUNDLED_METHOD_TEST_SUITE_TEST_CASES, 4, "test_cases")

    def test_cases(self, method="forward"):
        """How many test cases `method` has."""
        return self._cases(method)[1]

    def inputs(self, method, i):
        """Test case i's inputs: Tensors over the bundle's bytes (or ints, bools, floats)."""
        return self._values(method, i, BUNDLED_METHOD_TEST_CASE_INPUTS, "inputs")

    def expected_outputs(self, method, i):
        return self._values(method, i, BUNDLED_METHOD_TEST_CASE_EXPECTED_OUTPUTS, "expected_outputs")

    def _values(self, method, i, slot, kind):
        start, n = self._cases(method)
        if not 0 <= i < n:
            raise MpyEtError(INVALID_ARGUMENT, "method %r has %d test cases; test case %d does not exist" % (method, n, i))
        r = self.reader
        what = "test case %d %s" % (i, kind)
        case = r.table_at(start, i, what)
        vs, k = r.vector(case, slot, 4, what)
        return [self._value(r, r.table_at(vs, j, what), "%s[%d]" % (what, j)) for j in range(k)]

    def _value(self, r, v, what):
        tag = r.scalar(v, VALUE_VAL_TYPE, FlatReader.u8, 0, what)
        pos = r.subtable(v, VALUE_VAL, what)
        if not pos:
            r.fail(what, "value of type tag %d is missing" % tag)
        if tag == _INT:
            return r.scalar(pos, INT_INT_VAL, FlatReader.i64, 0, what)
        if tag == _BOOL:
            return bool(r.scalar(pos, BOOL_BOOL_VAL, FlatReader.u8, 0, what))
        if tag == _DOUBLE:
            return r.scalar(pos, DOUBLE_DOUBLE_VAL, FlatReader.f64, 0.0, what)
        if tag != _TENSOR:
            r.fail(what, "unknown value type tag %d" % tag)
        dtype = r.scalar(pos, TENSOR_SCALAR_TYPE, FlatReader.u8, 0, what)
        if dtype not in dtypes.INFO:
            raise MpyEtError(NOT_SUPPORTED, "%s: tensor scalar type %d is not supported" % (what, dtype))
        s, k = r.vector(pos, TENSOR_SIZES, 4, what)
        sizes = r.ints(s, k, "i")
        s, k = r.vector(pos, TENSOR_DIM_ORDER, 1, what)
        for d in range(k):
            if r.u8(s + d, what) != d:
                raise MpyEtError(NOT_SUPPORTED, "%s: dim_order %s is not contiguous" % (what, list(r.ints(s, k, "B"))))
        t = Tensor(dtype, tuple(sizes))
        s, k = r.vector(pos, TENSOR_DATA, 1, what)
        if k != t.nbytes:
            r.fail(what, "%d data bytes for a %s tensor of %d bytes" % (k, list(sizes), t.nbytes))
        t.bind(self.buf, s)
        return t


def verify_outputs(method, expected, rtol=RTOL, atol=ATOL):
    """(ok, worst |got - expected|) of method's outputs against `expected`
    (a test case's expected_outputs): floats within atol + rtol * |expected|
    (NaN matches NaN), other dtypes equal. A different count, dtype or
    shape is not ok (worst None)."""
    if method.outputs_size() != len(expected):
        return False, None
    ok, worst = True, 0.0
    for i, want in enumerate(expected):
        got = method.output(i)
        if not isinstance(want, Tensor):
            return False, None  # mpy_et outputs are tensors
        if got.dtype != want.dtype or tuple(got.sizes) != tuple(want.sizes):
            return False, None
        a, b = got.data, want.data
        floating = want.dtype in dtypes.FLOATING
        for j in range(want.numel):
            x, y = a[j], b[j]
            if floating:
                if x != x and y != y:
                    continue
                d = abs(x - y)
                if not d <= atol + rtol * abs(y):  # `not <=`: a NaN on one side fails
                    ok = False
            else:
                d = abs(int(x) - int(y))
                if d:
                    ok = False
            if d > worst:
                worst = d
    return ok, worst

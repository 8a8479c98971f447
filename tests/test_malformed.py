"""Malformed programs raise MpyEtError with a useful message, never crash."""

import json
import random

import pytest
import torch
from conftest import MICROPYTHON_TARGETS
from pte_mutations import mutations

import mpy_et
from host_tools.lowering.ir import tensor_bytes
from host_tools.targets import run_code

_DEVICE_CHECK = """
import json
import mpy_et
with open(DATA_DIR + "/cases.json") as f:
    names = json.load(f)
for i, name in enumerate(names):
    with open(DATA_DIR + "/case%d.pte" % i, "rb") as f:
        data = f.read()
    try:
        m = mpy_et.Program.load(data).load_method("forward")
        m.execute()
        print("OK %d" % i)
    except mpy_et.MpyEtError as e:
        print("ERR %d %d %s" % (i, e.code, e.message))
    except Exception as e:
        print("CRASH %d %s %s" % (i, type(e).__name__, e))
"""


def _load_all(data):
    m = mpy_et.Program.load(data).load_method("forward")
    m.execute()
    return m


@pytest.fixture(scope="module")
def cases(examples):
    return mutations(examples["cnn"][3])


def test_mutations_on_cpython(cases):
    for name, data, code, fragment in cases:
        with pytest.raises(mpy_et.MpyEtError) as info:
            _load_all(data)
        assert info.value.code == code, (name, str(info.value))
        assert fragment in info.value.message, (name, str(info.value))


@pytest.mark.parametrize("target", MICROPYTHON_TARGETS)
def test_mutations_on_micropython(cases, target):
    files = {"cases.json": json.dumps([c[0] for c in cases]).encode()}
    for i, (_, data, _, _) in enumerate(cases):
        files["case%d.pte" % i] = data
    lines = run_code(target, _DEVICE_CHECK, files, timeout=300).splitlines()
    assert len(lines) == len(cases), lines[-5:]
    for line, (name, _, code, fragment) in zip(lines, cases):
        kind, _, rest = line.partition(" ")
        assert kind == "ERR", (target, name, line)
        _, got_code, message = rest.split(" ", 2)
        assert int(got_code) == code and fragment in message, (target, name, line)


def test_random_corruption_never_crashes(examples):
    """Byte flips anywhere: the program either still works or raises MpyEtError."""
    data = examples["mlp"][3]
    rng = random.Random(1234)
    raised = 0
    for _ in range(300):
        buf = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            buf[rng.randrange(len(buf))] = rng.randrange(256)
        try:
            _load_all(bytes(buf))
        except mpy_et.MpyEtError:
            raised += 1
    assert raised > 0


def test_unknown_method_and_bad_source(examples):
    program = mpy_et.Program.load(examples["mlp"][3])
    with pytest.raises(mpy_et.MpyEtError, match="no method 'predict'.*forward"):
        program.load_method("predict")
    with pytest.raises(mpy_et.MpyEtError, match="takes a path, bytes"):
        mpy_et.Program.load(12)


def test_set_input_checks(examples):
    m = mpy_et.Program.load(examples["mlp"][3]).load_method()
    with pytest.raises(mpy_et.MpyEtError, match="expected 256 bytes"):
        m.set_input(0, bytes(12))
    with pytest.raises(mpy_et.MpyEtError, match=r"expected shape \[4, 16\], got \[4, 15\]"):
        m.set_input(0, [[0.0] * 15] * 4)
    with pytest.raises(mpy_et.MpyEtError, match="has 2 inputs; input 2 does not exist"):
        m.set_input(2, bytes(4))
    import array

    with pytest.raises(mpy_et.MpyEtError, match="typecode 'i'"):
        m.set_input(0, array.array("i", [0] * 64))
    m.set_input(0, array.array("f", [0.5] * 64))
    m.set_input(1, tensor_bytes(torch.ones(4, 1)))
    m.execute()
    assert m.output(0).sizes == (4, 8)


def test_missing_operators_all_reported(examples):
    from portable_kernels.registry import KERNELS

    trimmed = {k: v for k, v in KERNELS.items() if k not in ("aten::convolution.out", "aten::_log_softmax.out")}
    with pytest.raises(mpy_et.MpyEtError) as info:
        mpy_et.Program.load(examples["cnn"][3]).load_method(registry=trimmed)
    msg = str(info.value)
    assert info.value.code == 0x14 and "2 operator(s)" in msg
    assert "aten::convolution.out (instructions [0, 3])" in msg and "aten::_log_softmax.out" in msg


def test_unsupported_model_ops_listed_with_source():
    from host_tools import export
    from host_tools.lowering.lower import UnsupportedOps

    class Odd(torch.nn.Module):
        def forward(self, x):
            y = torch.cumsum(x, 0)
            return torch.sort(y).values

    with pytest.raises(UnsupportedOps) as info:
        export(Odd(), (torch.randn(5),))
    msg = str(info.value)
    assert "aten::cumsum.out" in msg and "aten::sort.values" in msg, msg
    assert "test_malformed.py:" in msg and "torch.cumsum(x, 0)" in msg, msg

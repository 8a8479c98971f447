"""cortex_m::softmax bit for bit as ExecuTorch's reference (torch float32),
on CPython and every port: rows whose exact value lies within 1e-5 of an
output rounding tie (where torch's float32 roundings, its Sleef / glibc
exps and its summation order decide), saturation (huge and tiny scales),
extreme and equal values, rows of 1 to 40, the last dim and others,
channels-last. The exps alone against glibc's expf through ctypes."""

import ctypes
import math
import random
import struct

import pytest
import torch

pytest.importorskip("tosa_serializer")  # ExecuTorch's Cortex-M passes import its Arm backend

import executorch.backends.cortex_m.quantizer.quantizer  # noqa: E402,F401  (registers torch.ops.cortex_m)
from conftest import TARGETS  # noqa: E402
from cortex_m_harness import empty, run, tensor  # noqa: E402

from host_tools.targets import run_code  # noqa: E402
from portable_kernels.cortex_m import f32, f32_exp  # noqa: E402

CM = torch.ops.cortex_m
# The reference sums a last-dim row in vector lanes as wide as its host's (cortex_m/op_softmax.py)
AVX512 = torch.backends.cpu.get_cpu_capability() == "AVX512"


def _near_ties(n_rows=40):
    """Rows (int8, mult, shift, zp) where 256 * softmax lies within 1e-5 of k + 1/2."""
    g = torch.Generator().manual_seed(5)
    rnd = random.Random(1)
    found = []
    while len(found) < n_rows:
        n = rnd.choice([2, 3, 5, 10, 17] if AVX512 else [2, 3, 5])
        m, sh, zp = rnd.randrange(1 << 30, 1 << 31), rnd.randrange(16, 26), rnd.randrange(-128, 128)
        x = torch.randint(-128, 128, (4000, n), dtype=torch.int8, generator=g)
        xf = x.double() * (math.ldexp(m / 2147483648.0, sh) / (1 << 26))
        p = torch.softmax(xf, -1) * 256
        near = ((p - p.floor() - 0.5).abs() < 1e-5).any(1).nonzero().flatten()[:4]
        found += [(x[int(r)], m, sh, zp) for r in near]
    return found[:n_rows]


def _cases():
    """(int8 tensor, dim, zp, mult, shift): near ties along the last dim and dim 0, then edges."""
    cases = []
    for x, m, sh, zp in _near_ties():
        cases.append((x[None], -1, zp, m, sh))
        cases.append((x[:, None], 0, zp, m, sh))
    g = torch.Generator().manual_seed(9)
    rnd = random.Random(9)
    for n in (1, 2, 7, 16, 17, 33, 40):
        for sh in (20, 40, 0):  # typical, saturating (one-hot), tiny (uniform)
            x = torch.randint(-128, 128, (2, n), dtype=torch.int8, generator=g)
            x[0, :3] = 127
            x[1, : n // 2] = -128
            cases.append((x, rnd.choice([-1, 1]), rnd.randrange(-128, 128), rnd.randrange(1 << 30, 1 << 31), sh))
    x = torch.randint(-128, 128, (1, 6, 3, 4), dtype=torch.int8, generator=g).contiguous(memory_format=torch.channels_last)
    cases.append((x, 1, 3, 1518500250, 22))  # ExecuTorch's channels-last softmax: over the channels
    cases.append((torch.full((1, 8), 5, dtype=torch.int8), -1, 0, 1 << 30, 24))  # equal: exactly 32
    return cases


def _want(x, dim, zp, m, sh):
    return CM.softmax(x, dim, zp, -128, m, sh, -100)


def test_softmax_matches_executorch_bit_for_bit():
    cases = _cases()
    for x, dim, zp, m, sh in cases:
        got = run("softmax", [tensor(x), dim, zp, -128, m, sh, -100], empty(tuple(x.shape), order=tuple(x.dim_order())))
        assert torch.equal(got, _want(x, dim, zp, m, sh)), (x.tolist(), dim, zp, m, sh, got.tolist())


def test_near_tie_cases_tell_float_error_apart():
    """The near-tie rows are where a softmax in doubles rounds differently from
    the reference: some must, or the exact test above could not fail."""
    wrong = 0
    for x, dim, zp, m, sh in _cases()[:80]:
        xf = (x.double() - zp) * (math.ldexp(m / 2147483648.0, sh) / (1 << 26))
        plain = (torch.softmax(xf, dim) * 256).round().sub(128).clamp(-128, 127).to(torch.int8)
        wrong += int((plain != _want(x, dim, zp, m, sh)).sum())
    assert wrong >= 5, wrong


def test_glibc_expf_replay_matches_libm():
    try:
        libm = ctypes.CDLL("libm.so.6")
    except OSError:
        pytest.skip("no glibc libm")
    libm.expf.restype = ctypes.c_float
    libm.expf.argtypes = [ctypes.c_float]
    rnd = random.Random(3)
    xs = [rnd.uniform(-110, 0) for _ in range(4000)] + [rnd.uniform(-1, 0) for _ in range(4000)]
    xs += [-rnd.random() * 10.0 ** -rnd.randrange(1, 40) for _ in range(500)] + [-104.0, -103.97, -103.96, -87.5, 0.0]
    for v in xs:
        bits = struct.unpack("<I", struct.pack("<f", v))[0]
        fv = struct.unpack("<f", struct.pack("<I", bits))[0]
        want = struct.unpack("<I", struct.pack("<f", libm.expf(fv)))[0]
        assert f32.encode(f32_exp.exp_glibc(f32.decode(bits))) == want, (fv, hex(bits))


_RUNNER = """
from mpy_et import dtypes
from mpy_et.tensor import Tensor
from portable_kernels.cortex_m.op_softmax import softmax_out
for sizes, order, data, dim, zp, m, sh in CASES:
    x = Tensor(dtypes.CHAR, sizes)
    x.bind(bytearray(len(data)), 0)
    out = Tensor(dtypes.CHAR, sizes)
    out.bind(bytearray(len(data)), 0)
    if order is not None:
        x.dim_order = order
        out.dim_order = order
    for i in range(len(data)):
        x.data[i] = data[i]
    step = softmax_out(x, dim, zp, -128, m, sh, -100, out)
    step[0](step[1])
    print("OUT", [out.data[i] for i in range(len(data))])
"""


def _memory(x):
    """x's int8 values in its memory order, and that order (None: contiguous)."""
    order = tuple(x.dim_order())
    flat = x.permute(order).contiguous().flatten().tolist()
    return flat, (None if order == tuple(range(x.dim())) else order)


@pytest.mark.parametrize("target", TARGETS)
def test_softmax_on_every_target(target):
    """The same near-tie and edge cases on each port, equal to the reference."""
    cases = _cases()[::3]
    rows = []
    for x, dim, zp, m, sh in cases:
        flat, order = _memory(x)
        rows.append((tuple(x.shape), order, flat, dim, zp, m, sh))
    out = run_code(target, "CASES = %r\n" % (rows,) + _RUNNER, timeout=900)
    got = [eval(line[4:]) for line in out.splitlines() if line.startswith("OUT ")]
    assert len(got) == len(cases), out[-2000:]
    for (x, dim, zp, m, sh), g in zip(cases, got):
        assert g == _memory(_want(x, dim, zp, m, sh))[0], (target, x.tolist(), dim, zp, m, sh, g)

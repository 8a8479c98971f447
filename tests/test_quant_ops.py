"""Zero allocation on the quantized zoo (issue 9, requirement 4).

Each fully int8 zoo model below is exported with PT2E calibration and run on
unix MicroPython (viper fast paths), WebAssembly (pure-Python reference,
32-bit small ints) and the emulated Cortex-M3 (viper + asm_thumb, armv7m
.mpy): execute() locks the heap itself (every step is marked
allocation-free), reports execute_heap_bytes == 0, survives the runner's own
heap_lock around execute(), and prints exactly the host integer reference.

The set covers the zoo's int8 operator kinds but add (linear, conv1d, conv2d
regular/depthwise/pointwise, max/avg pool, softmax, table activations,
upsample_nearest2d); the residual add is covered by tests/test_quant.py.
fc_autoencoder (linear only, as mlp), mobilenet_v1_025, resnet8 and
mobilenet_v2_block use the same kernels at larger sizes and are left out for
time (about 50 s more of export, wasm and board runs).
"""

import pytest
import torch

from host_tools import export, run
from host_tools.targets import unavailable
from host_tools.zoo import build

# model -> int8 operators it must have fused (names as in the export report)
ZOO_INT8 = {
    "mlp": {"linear"},
    "imu_cnn1d": {"conv1d", "max_pool2d", "avg_pool2d", "linear"},
    "lenet5": {"conv2d", "max_pool2d", "linear"},
    "ds_cnn": {"conv2d", "avg_pool2d", "linear", "softmax"},
    "conv_autoencoder": {"conv2d", "upsample_nearest2d", "lut"},
}

_EXPORTED = {}


def _exported(name):
    if name not in _EXPORTED:
        model, inputs = build(name)
        torch.manual_seed(1)
        calibration = [tuple(torch.randn_like(t) for t in inputs) for _ in range(8)]
        report = {}
        pte = export(model, inputs, quantize="int8", calibration=calibration, report=report)
        _EXPORTED[name] = (pte, inputs, report)
    return _EXPORTED[name]


@pytest.mark.parametrize("name", sorted(ZOO_INT8))
def test_zoo_model_exports_fully_int8(name):
    _, _, report = _exported(name)
    assert report["float_ops"] == [], (name, report["float_ops"])
    fused = {op.split(" ")[0] for op in report["fused"]}
    assert ZOO_INT8[name] <= fused, (name, report["fused"])


@pytest.mark.parametrize("target", ["unix", "wasm", "cortex-m3-large"])
def test_zoo_execute_allocates_nothing_and_is_bit_identical(target):
    why = unavailable(target)
    if why:
        pytest.skip(why)
    for name in sorted(ZOO_INT8):
        pte, inputs, report = _exported(name)
        want = report["reference"](*inputs)
        res = run(pte, inputs, target, repeat=1, heap_lock=True)
        s = res.stats
        assert s["heap_lock_ok"] is True, (name, target, s)
        assert s["execute_heap_locked"] is True, (name, target, s)
        assert s["execute_heap_bytes"] == 0, (name, target, s)
        got = res.outputs[0]
        assert got.dtype == want.dtype and torch.equal(got, want), (name, target, (got - want).abs().max().item())


# --- mpy_et_quant::bmm (portable_kernels/quantized/op_bmm.py) against host_tools/quantize/ref_bmm.py ---
# The kernel is called directly (its lowering from the transformer's bmm is not wired yet);
# both steps (pure Python, and viper where the port has the emitter, assembler on the
# Thumb-2 boards) in one process per target.

_BMM_DEVICE = """
from mpy_et.tensor import Tensor
from mpy_et.errors import MpyEtError
from portable_kernels.quantized import requant as q_requant
from portable_kernels.quantized.op_bmm import bmm_out
try:
    from micropython import heap_lock, heap_unlock
except ImportError:
    heap_lock = heap_unlock = None

def tensor(sizes, raw):
    t = Tensor(1, sizes)
    buf = bytearray(t.nbytes)
    t.bind(buf, 0)
    if raw is not None:
        buf[:] = raw
    return t, buf

for viper in ([False, True] if q_requant.HAS_VIPER else [False]):
    q_requant.use_viper = viper
    for name, a_sz, a_raw, b_sz, b_raw, params in CASES:
        a, _ = tensor(a_sz, a_raw)
        b, _ = tensor(b_sz, b_raw)
        out, obuf = tensor((a_sz[0], a_sz[1], b_sz[2]), None)
        try:
            step, ctx = bmm_out(a, b, *params, out)
        except MpyEtError as e:
            print("ERR", name, e)
            continue
        if heap_lock:
            heap_lock()
        try:
            step(ctx)
            step(ctx)
        finally:
            if heap_lock:
                heap_unlock()
        print("OUT", name, "viper" if viper else "ref", step.__name__, "".join("%02x" % v for v in obuf))
"""


def _bmm_cases():
    from host_tools.quantize import ref as quant_ref
    from host_tools.quantize.ref_bmm import bmm

    cases, want = [], {}
    shapes = [("attn_qk", 4, 16, 8, 16, 2.0**-9), ("attn_pv", 4, 16, 16, 8, 2.0**-11), ("wide_k", 1, 3, 300, 2, 2.0**-13)]
    shapes += [("tiny", 2, 1, 1, 1, 0.7), ("big_mult", 1, 2, 5, 3, 3.0)]
    for seed, (name, nb, m, k, n, real) in enumerate(shapes):
        g = torch.Generator().manual_seed(seed)
        a = torch.randint(-128, 128, (nb, m, k), generator=g).to(torch.int8)
        b = torch.randint(-128, 128, (nb, k, n), generator=g).to(torch.int8)
        za, zb, zo = int(torch.randint(-20, 20, (1,), generator=g)), -128 + seed, 5 - seed
        mult, s, lim = quant_ref.requant_params(real)
        lo, hi = (-128, 127) if seed % 2 else (zo, 127)  # a folded relu on every other case
        params = (za, zb, mult, s, lim, zo, lo, hi)
        want[name] = bmm(a, b, za, zb, mult, s, lim, zo, lo, hi)
        cases.append((name, (nb, m, k), a.numpy().tobytes(), (nb, k, n), b.numpy().tobytes(), params))
    a = torch.zeros(1, 2, 3, dtype=torch.int8).numpy().tobytes()
    cases.append(("bad_inner", (1, 2, 3), a, (1, 4, 2), bytes(8), (0, 0, 16384, 20, 1 << 20, 0, -128, 127)))
    cases.append(("bad_zp", (1, 2, 3), a, (1, 3, 2), bytes(6), (0, 200, 16384, 20, 1000, 0, -128, 127)))
    return cases, want


@pytest.mark.parametrize("target", ["cpython", "unix", "wasm", "circuitpython", "cortex-m3", "cortex-m7"])
def test_bmm_kernel_bit_identical_under_heap_lock(target):
    why = unavailable(target)
    if why:
        pytest.skip(why)
    from host_tools.targets import run_code

    cases, want = _bmm_cases()
    out = run_code(target, "CASES = %r\n" % (cases,) + _BMM_DEVICE, timeout=300)
    # "viper": the native step (q_bmm_viper's; q_bmm_thumb's on the Thumb-2 boards)
    paths = {"ref": "_bmm", "viper": "_step"} if target in ("unix", "cortex-m3", "cortex-m7") else {"ref": "_bmm"}
    got = {}
    for line in out.splitlines():
        if line.startswith("OUT "):
            _, name, path, step, hexed = line.split(" ")
            assert step == paths[path], (target, name, path, step)  # the viper step ran where the port has the emitter
            got[name, path] = torch.frombuffer(bytearray(bytes.fromhex(hexed)), dtype=torch.int8).reshape(want[name].shape)
    assert set(got) == {(name, path) for name in want for path in paths}, out
    for (name, path), g in got.items():
        assert torch.equal(g, want[name]), (target, name, path, (g.int() - want[name].int()).abs().max().item())
    assert "ERR bad_inner InvalidArgument (0x12): mpy_et_quant::bmm: b must be [1, 3, N] for a int8[1, 2, 3], got int8[1, 4, 2]" in out, out
    assert "ERR bad_zp InvalidArgument (0x12): mpy_et_quant::bmm b_zero_point must be an int in -128..127, got 200" in out, out

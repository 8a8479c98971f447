"""The memory planner: algorithms, lower bound, in-place reuse, memory ids.

Every plan made here goes through the verifier (memory_plan.verify or
verify_placement)."""

import itertools
import random

import pytest
import torch

import mpy_et
from host_tools import export, run
from host_tools.export import capture, supported_ops
from host_tools.lowering.ir import tensor_bytes
from host_tools.lowering.lower import lower
from host_tools.planning import algorithms as algos
from host_tools.planning import memory_plan
from host_tools.planning.lifetimes import INPLACE_OPS, Buffer, lower_bound
from portable_kernels.registry import KERNELS


def random_buffers(rng, n, steps=12, max_size=8):
    out = []
    for i in range(n):
        a, b = sorted(rng.randrange(steps) for _ in range(2))
        out.append(Buffer(i, 16 * rng.randrange(1, max_size + 1), a, b, [i]))
    return out


@pytest.mark.parametrize("seed", range(40))
def test_every_algorithm_makes_a_valid_plan_no_smaller_than_the_bound(seed):
    rng = random.Random(seed)
    bufs = random_buffers(rng, rng.randrange(1, 30))
    bound = lower_bound(bufs, 16)[0]
    for name, fn in algos.ALGORITHMS.items():
        offsets = fn(bufs, 16)
        size = algos.size_of(bufs, offsets, 16)
        memory_plan.verify_placement(bufs, offsets, size, 16)
        assert size >= bound, name
    offsets, size, _, _ = memory_plan.place(bufs, 16)
    memory_plan.verify_placement(bufs, offsets, size, 16)


def _brute_force(bufs):
    """Smallest arena over every placement on a 16-byte grid (tiny inputs only)."""
    top = sum(b.nbytes for b in bufs)
    best = top
    for offs in itertools.product(range(0, top, 16), repeat=len(bufs)):
        size = max(o + b.nbytes for o, b in zip(offs, bufs))
        if size >= best:
            continue
        offsets = {b.owner: o for o, b in zip(offs, bufs)}
        try:
            memory_plan.verify_placement(bufs, offsets, size, 16)
        except memory_plan.PlanError:
            continue
        best = size
    return best


@pytest.mark.parametrize("seed", range(12))
def test_search_is_exact_on_small_graphs(seed):
    rng = random.Random(100 + seed)
    bufs = random_buffers(rng, 4, steps=5, max_size=4)
    greedy = algos.greedy_by_size(bufs, 16)
    offsets, optimal = algos.search(bufs, 16, lower_bound(bufs, 16)[0], greedy)
    size = algos.size_of(bufs, offsets, 16)
    memory_plan.verify_placement(bufs, offsets, size, 16)
    assert optimal
    assert size == _brute_force(bufs)


def test_search_beats_greedy_where_greedy_is_not_optimal():
    # Greedy by size puts A (64 B) at 0, then B and C (48 B each, alive with
    # A but not with each other) above it, and D (alive with B and C, not A)
    # must go above them all; the optimum stacks D over A's bytes instead.
    bufs = [Buffer(0, 64, 0, 1, [0]), Buffer(1, 48, 1, 2, [1]), Buffer(2, 48, 0, 0, [2]), Buffer(3, 32, 2, 3, [3])]
    greedy = algos.size_of(bufs, algos.greedy_by_size(bufs, 16), 16)
    offsets, size, _, optimal = memory_plan.place(bufs, 16)
    memory_plan.verify_placement(bufs, offsets, size, 16)
    assert optimal and size <= greedy and size == _brute_force(bufs)


class Chain(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x * 1.5 - 0.25)


# One torch expression per in-place op (applied to a tensor that dies there).
INPLACE_EXAMPLES = {
    "aten::add.out": lambda t: t + torch.ones(t.shape),
    "aten::add.Scalar_out": lambda t: t + 2.0,
    "aten::sub.out": lambda t: t - torch.full(t.shape, 0.5),
    "aten::sub.Scalar_out": lambda t: t - 2.0,
    "aten::rsub.Scalar_out": lambda t: 2.0 - t,
    "aten::mul.out": lambda t: t * torch.arange(t.shape[-1], dtype=t.dtype),
    "aten::mul.Scalar_out": lambda t: t * 3.0,
    "aten::div.out": lambda t: t / (torch.arange(t.shape[-1], dtype=t.dtype) + 1),
    "aten::div.Scalar_out": lambda t: t / 3.0,
    "aten::relu.out": torch.relu,
    "aten::sigmoid.out": torch.sigmoid,
    "aten::tanh.out": torch.tanh,
    "aten::hardtanh.out": lambda t: torch.nn.functional.hardtanh(t, -0.5, 0.5),
    "aten::clamp.out": lambda t: torch.clamp(t, -0.5, 0.7),
    "aten::neg.out": torch.neg,
    "aten::exp.out": torch.exp,
    "aten::gelu.out": torch.nn.functional.gelu,
    "aten::silu.out": torch.nn.functional.silu,
    "aten::hardswish.out": torch.nn.functional.hardswish,
    "aten::hardsigmoid.out": torch.nn.functional.hardsigmoid,
    "aten::leaky_relu.out": torch.nn.functional.leaky_relu,
    "aten::elu.out": torch.nn.functional.elu,
    "aten::abs.out": torch.abs,
    "aten::sqrt.out": lambda t: torch.sqrt(t.abs()),
    "aten::rsqrt.out": lambda t: torch.rsqrt(t.abs() + 1),
    "aten::reciprocal.out": lambda t: torch.reciprocal(t.abs() + 1),
    "aten::clone.out": lambda t: t.clone() + 0,
}

# Core ATen decomposes these (x * sigmoid(x), clamp arithmetic), and so does
# ExecuTorch's exporter: no exported program holds them. Their kernels run in
# place in tests/test_math_export.py::test_kernel_runs_in_place.
DECOMPOSED = {"aten::silu.out", "aten::hardswish.out", "aten::hardsigmoid.out"}
ACTIVE_INPLACE = sorted((INPLACE_OPS & set(KERNELS)) - DECOMPOSED)


def test_every_inplace_op_has_an_example():
    assert set(INPLACE_OPS) == set(INPLACE_EXAMPLES)
    assert len(ACTIVE_INPLACE) >= 10, ACTIVE_INPLACE


@pytest.mark.parametrize("op", ACTIVE_INPLACE)
def test_inplace_op_runs_over_its_input(op):
    model = Chain(INPLACE_EXAMPLES[op])
    x = (torch.randn(3, 17),)
    ir = lower(capture(model, x), supported_ops())
    assert op in {ins.op for ins in ir.instructions}, (op, [ins.op for ins in ir.instructions])
    memory_plan.plan(ir)
    ins = next(ins for ins in ir.instructions if ins.op == op)
    out = ir.tensor(ins.args[-1])
    shared = [a for a in ins.args[:-2] if ir.tensor(a) is not None and ir.tensor(a).offset == out.offset and ir.tensor(a).constant is None]
    assert shared, "%s did not run in place" % op
    pte = export(model, x)
    got = run(pte, x, "cpython", repeat=1).outputs[0]
    torch.testing.assert_close(got, model(*x), atol=1e-5, rtol=1e-5)


def test_inplace_chain_on_micropython():
    ops = [o for o in ("aten::relu.out", "aten::sigmoid.out", "aten::tanh.out", "aten::mul.Scalar_out", "aten::add.out") if o in KERNELS]

    class Many(torch.nn.Module):
        def forward(self, x):
            t = x * 1.5
            for op in ops:
                t = INPLACE_EXAMPLES[op](t)
            return t

    x = (torch.randn(4, 33),)
    model = Many()
    pte = export(model, x)
    m = mpy_et.Program.load(pte).load_method()
    assert m.planned_bytes == 4 * 33 * 4, m.planned_bytes  # every op in place over the input's bytes
    for target in ("cpython", "unix"):
        got = run(pte, x, target, repeat=1).outputs[0]
        torch.testing.assert_close(got, model(*x), atol=1e-5, rtol=1e-5)


def test_pin_rules_make_memory_ids(examples):
    model, inputs, expected, _ = examples["cnn"]
    ir = lower(capture(model, inputs), supported_ops())
    memory_plan.plan(ir, pin={"inputs": 2, "largest:1": 3})
    assert len(ir.arena_sizes) == 3
    assert ir.tensor(ir.inputs[0]).mem_id == 2
    assert [m["mem_id"] for m in ir.plan_info["memory_ids"]] == [1, 2, 3]
    with pytest.raises(ValueError, match="matches no planned tensor"):
        memory_plan.plan(lower(capture(model, inputs), supported_ops()), pin={"no_such_tensor*": 2})


@pytest.mark.parametrize("target", ["cpython", "unix"])
def test_several_memory_ids_run_with_caller_buffers(examples, target):
    model, inputs, expected, _ = examples["cnn"]
    pte = export(model, inputs, pin={"inputs": 2, "outputs": 2})
    program = mpy_et.Program.load(pte)
    sizes = program.load_method().planned_sizes
    assert len(sizes) == 2 and all(sizes), sizes
    m = program.load_method(buffers=[bytearray(sizes[0]), bytearray(sizes[1])])
    m.set_input(0, tensor_bytes(inputs[0]))
    m.execute()
    torch.testing.assert_close(torch.tensor(m.output(0).tolist()), expected[0], atol=1e-5, rtol=1e-5)
    with pytest.raises(mpy_et.MpyEtError, match="memory id 2 is 8 bytes, needs %d" % sizes[1]):
        program.load_method(buffers=[bytearray(sizes[0]), bytearray(8)])
    got = run(pte, inputs, target, repeat=1).outputs[0]
    torch.testing.assert_close(got, expected[0], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("alignment", [1, 4, 64])
def test_alignment_is_configurable(examples, alignment):
    model, inputs, _, _ = examples["cnn"]
    ir = lower(capture(model, inputs), supported_ops())
    memory_plan.plan(ir, alignment=alignment)
    offsets = [v.payload.offset for v in ir.values if v.kind == "Tensor" and v.payload.constant is None]
    assert all(o % alignment == 0 for o in offsets)
    with pytest.raises(ValueError, match="power of two"):
        memory_plan.plan(ir, alignment=3)


def _narrowing_buffers(rng, n):
    """random_buffers, some narrowing (lifetimes.Buffer.tail_from): a float
    input whose int8 copy is written over its start keeps only the copy's
    bytes after that instruction."""
    bufs = random_buffers(rng, n)
    for b in bufs:
        if b.end > b.start and rng.random() < 0.4:
            b.tail_from = rng.randrange(b.start, b.end)
            b.tail_bytes = 16 * rng.randrange(1, b.nbytes // 16 + 1)
    return bufs


@pytest.mark.parametrize("seed", range(30))
def test_narrowing_buffers_plan_validly_and_exactly(seed):
    rng = random.Random(500 + seed)
    bufs = _narrowing_buffers(rng, rng.randrange(1, 25))
    bound = lower_bound(bufs, 16)[0]
    for name, fn in algos.ALGORITHMS.items():
        offsets = fn(bufs, 16)
        size = algos.size_of(bufs, offsets, 16)
        memory_plan.verify_placement(bufs, offsets, size, 16)
        assert size >= bound, name
    small = _narrowing_buffers(random.Random(900 + seed), 4)
    for b in small:
        b.start, b.end = b.start % 5, min(b.end % 5 + b.start % 5, 4)
        b.nbytes = min(b.nbytes, 64)
        b.tail_bytes = min(b.tail_bytes, b.nbytes)
        if b.tail_from is not None and not b.start <= b.tail_from < b.end:
            b.tail_from = None
    offsets, optimal = algos.search(small, 16, lower_bound(small, 16)[0], algos.greedy_by_size(small, 16))
    size = algos.size_of(small, offsets, 16)
    memory_plan.verify_placement(small, offsets, size, 16)
    assert optimal and size == _brute_force(small)


def test_quantize_writes_the_int8_copy_over_the_float_input():
    """int8 with float inputs: the input's int8 copy starts where the float
    input does (mpy_et_quant::quantize_per_tensor reads element i before
    writing byte i), so the arena needs the float input alone, not both:
    mobilenet_v1_025 138,240 -> 110,592 B, which then runs on the 224 KB
    board. Bit for bit the same outputs on every MicroPython target."""
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(4, 2, 3)).eval()
    x = (torch.randn(1, 3, 12, 12),)
    g = torch.Generator().manual_seed(0)
    pte = export(model, x, quantize="int8", calibration=[(torch.randn(1, 3, 12, 12, generator=g),) for _ in range(4)])
    m = mpy_et.Program.load(pte).load_method()
    float_in, int8_in, conv1 = 3 * 12 * 12 * 4, 3 * 12 * 12, 4 * 12 * 12
    assert m.planned_bytes < float_in + int8_in
    assert m.planned_bytes <= max(float_in, int8_in + conv1 + 64), m.planned_bytes
    want = run(pte, x, "cpython", repeat=1).outputs[0]
    for target in ("unix", "wasm", "circuitpython", "cortex-m3"):
        assert torch.equal(run(pte, x, target, repeat=1).outputs[0], want), target

"""Backend delegates: DelegateCall at load and run (mpy_et/backends/__init__.py), the
host's partitioner + preprocess API (host_tools/delegates/), the ulab backend
on CPython (numpy standing in) and on the CircuitPython target (ulab), and
ExecuTorch's own programs and serializer in both directions."""

import pytest
import torch
from conftest import require

import host_tools.delegates.ulab as ulab
import mpy_et.backends as registry
from host_tools import export, run
from host_tools.targets import TargetError
from mpy_et import MpyEtError, Program


class Layers(torch.nn.Module):
    """Every op the ulab partitioner claims, each convolution mode, and a
    portable op (leaky_relu) between two delegate calls."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.stem = torch.nn.Conv2d(2, 8, 3, stride=2, padding=1)  # one im2col matrix (g = 9 taps)
        self.dw = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8)  # DEPTHWISE
        self.big = torch.nn.Conv2d(8, 16, 5, padding=2)  # taps in groups of 8, 8, 8, 1 (IM2COL_MAX_BYTES)
        self.pw = torch.nn.Conv2d(16, 8, 1)  # 1x1: the input is the matrix
        self.fc = torch.nn.Linear(8, 10)
        self.fc2 = torch.nn.Linear(10, 10, bias=False)

    def forward(self, x):
        a = torch.relu(self.stem(x))
        b = torch.nn.functional.hardtanh(self.dw(a), -0.5, 0.5)
        c = self.pw(torch.tanh(self.big(b)))
        c = c * torch.sigmoid(c) + a
        d = torch.nn.functional.max_pool2d(c, 2)
        e = torch.nn.functional.leaky_relu(d, 0.1)  # portable
        u = torch.nn.functional.interpolate(e, scale_factor=2.0, mode="nearest")
        g = torch.nn.functional.avg_pool2d(u, 8).flatten(1) + u.mean(-1).mean(-1)
        return self.fc2(torch.relu(self.fc(g)))


class Conv1d(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(1)
        self.c = torch.nn.Conv1d(3, 4, 5, stride=2, padding=2, dilation=2)

    def forward(self, x):
        return torch.relu(self.c(x))


def _layers():
    return Layers().eval(), (torch.randn(1, 2, 16, 16),)


def _close(got, want, tol=2e-5):
    torch.testing.assert_close(torch.as_tensor(got), want, atol=tol, rtol=tol)


@pytest.fixture(scope="module")
def layers_pte():
    model, inputs = _layers()
    report = {}
    pte = export(model, inputs, delegate="ulab", report=report)
    with torch.no_grad():
        want = model(*inputs)
    return model, inputs, want, pte, report


def test_partitioner_claims_linear_conv_and_the_elementwise_ops_around_them(layers_pte):
    *_, report = layers_pte
    runs = report["delegated"]
    assert len(runs) == 2, runs  # leaky_relu stays portable: it splits the runs
    first, second = runs
    assert first.count("aten::convolution.out") == 4 and first[-1] == "aten::amax.out", first
    assert {"aten::hardtanh.out", "aten::tanh.out", "aten::sigmoid.out", "aten::mul.out", "aten::add.out"} < set(first), first
    assert second == [
        "aten::upsample_nearest2d.vec_out",
        "aten::avg_pool2d.out",
        "aten::mean.out",
        "aten::mean.out",
        "aten::add.out",
        "aten::addmm.out",
        "aten::relu.out",
        "aten::mm.out",
    ], second


def _run_here(pte, inputs):
    """Run on this CPython (numpy stands in for ulab; the cpython target runs
    without site-packages, so there the backend is unavailable)."""
    m = Program.load(pte).load_method()
    for i, x in enumerate(inputs):
        m.set_input(i, x.flatten().tolist())
    m.execute()
    return torch.tensor(m.output(0).tolist())


def test_ulab_backend_on_cpython_matches_pytorch(layers_pte):
    _, inputs, want, pte, _ = layers_pte
    _close(_run_here(pte, inputs), want)


def test_conv1d_and_weights_read_in_place():
    model = Conv1d().eval()
    x = torch.randn(1, 3, 40)
    pte = export(model, (x,), delegate="ulab")
    _close(_run_here(pte, (x,)), model(x))
    program = Program.load(pte)
    _, blob, specs = program.backend_delegate(program._plans["forward"], 0, "test")
    assert blob.obj is program.buf and specs == []  # a view of the program's bytes, not a copy


class Convs(torch.nn.Module):
    """Stride-1 convolutions, gathered or on rows of the padded width (the
    host's pick, ulab._wide: both occur here): unpadded (LeNet's), a dot per
    tap (g = 1: the im2col rows would pass IM2COL_MAX_BYTES), dilated after an
    upsample (a result made at load), 1-D."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(2)
        self.plain = torch.nn.Conv2d(3, 6, 5)  # no padding: rows of the input's width, 4 cropped
        self.per_tap = torch.nn.Conv2d(6, 4, 3, padding=1, dilation=1)  # 4 * 6 * 36 * 38 > 16 KB: g = 1
        self.dilated = torch.nn.Conv2d(4, 4, 3, padding=2, dilation=2, bias=False)
        self.line = torch.nn.Conv1d(4, 2, 3, padding=1)

    def forward(self, x):
        a = torch.relu(self.plain(x))
        b = torch.sigmoid(self.per_tap(a))
        c = self.dilated(torch.nn.functional.interpolate(b, scale_factor=2.0, mode="nearest"))
        return self.line(c.mean(-1))


@pytest.mark.parametrize("target", ["cpython", "circuitpython"])
def test_stride_one_convolutions_read_taps_as_views(target):
    model = Convs().eval()
    x = torch.randn(1, 3, 40, 40)
    report = {}
    pte = export(model, (x,), delegate="ulab", report=report)
    assert report["delegated"] and sum(r.count("aten::convolution.out") for r in report["delegated"]) == 4, report
    wide = [ulab._wide(c.in_channels, c.out_channels, 9, 36, 36, 38, [1, 1], [1, 1]) for c in (model.per_tap,)]
    assert wide == [True] and not ulab._wide(3, 6, 25, 36, 36, 40, [1, 1], [0, 0])  # per_tap wide, plain gathered
    with torch.no_grad():
        want = model(x)
    if target == "cpython":
        _close(_run_here(pte, (x,)), want)
    else:
        _close(run(pte, (x,), target, repeat=1).outputs[0], want)


class Phases(torch.nn.Module):
    """Transposed convolutions (output s times the input) and a nearest
    upsampling read only by a convolution: each one PHASE_CONV."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(4)
        self.a = torch.nn.ConvTranspose2d(3, 5, 4, stride=2, padding=1)
        self.b = torch.nn.ConvTranspose2d(5, 4, 3, stride=2, padding=1, output_padding=1, bias=False)
        self.c = torch.nn.Conv2d(4, 2, 3, padding=1)
        self.d = torch.nn.Conv2d(2, 2, 5, padding=2)

    def forward(self, x):
        y = torch.relu(self.b(torch.relu(self.a(x))))
        y = self.c(torch.nn.functional.interpolate(y, scale_factor=3.0, mode="nearest"))
        up = torch.nn.functional.interpolate(y, scale_factor=2.0, mode="nearest")
        return self.d(up) + up  # up read twice: upsampled, then convolved


@pytest.mark.parametrize("target", ["cpython", "circuitpython"])
def test_transposed_and_upsampled_convolutions_run_as_output_phases(target):
    model = Phases().eval()
    x = torch.randn(1, 3, 3, 4)
    report = {}
    pte = export(model, (x,), delegate="ulab", report=report)
    assert report["delegated"] == [
        ["aten::convolution.out", "aten::relu.out", "aten::convolution.out", "aten::relu.out"]
        + ["aten::upsample_nearest2d.vec_out", "aten::convolution.out", "aten::upsample_nearest2d.vec_out"]
        + ["aten::convolution.out", "aten::add.out"]
    ], report
    program = Program.load(pte)
    blob = bytes(program.backend_delegate(program._plans["forward"], 0, "test")[1])
    words = list(memoryview(blob).cast("i")[: memoryview(blob).cast("i")[5]])
    codes, at = [], 6 + words[2]
    while at < len(words):
        codes.append(words[at + 1])
        at += words[at]
    assert codes.count(24) == 3 and codes.count(10) == 1, codes  # PHASE_CONV: a, b, c; d reads an upsampling kept
    with torch.no_grad():
        want = model(x)
    if target == "cpython":
        _close(_run_here(pte, (x,)), want)
    else:
        _close(run(pte, (x,), target, repeat=1).outputs[0], want)


class Recurrent(torch.nn.Module):
    """A GRU: per step a split of the gates, constant biases added, 1 - z
    (sub from a constant), leading-1 broadcasts; and its weights once in the blob."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(5)
        self.gru = torch.nn.GRU(4, 8, batch_first=True)

    def forward(self, x):
        return self.gru(x)[0]


@pytest.mark.parametrize("target", ["cpython", "circuitpython"])
def test_recurrent_steps_are_delegated_with_their_weights_once(target):
    model = Recurrent().eval()
    x = torch.randn(1, 5, 4)
    report = {}
    pte = export(model, (x,), delegate="ulab", report=report)
    took = [op for run in report["delegated"] for op in run]
    assert {"aten::split_with_sizes_copy.out", "aten::sub.out", "aten::add.out", "aten::mul.out"} <= set(took), took
    left = [op for _, op in Program.load(pte).load_method().step_ops() if not op.startswith("delegate:")]
    assert left == ["aten::cat.out", "aten::permute_copy.out"], left  # the steps' outputs joined: a run with no linear
    hidden = model.gru.weight_hh_l0.detach().contiguous()
    assert len(pte) < len(export(model, (x,))) + hidden.numel() * 4  # not a copy of weight_hh per step
    with torch.no_grad():
        want = model(x)
    if target == "cpython":
        _close(_run_here(pte, (x,)), want)
    else:
        _close(run(pte, (x,), target, repeat=1).outputs[0], want)


class Attention(torch.nn.Module):
    """PyTorch's encoder layer (layer norm first, gelu), then a slice, a
    select and a tanh-approximated gelu: every op is the delegate's."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(3)
        self.layer = torch.nn.TransformerEncoderLayer(16, 2, 24, dropout=0.0, activation="gelu", batch_first=True, norm_first=True)

    def forward(self, x):
        y = self.layer(x)
        z = torch.nn.functional.gelu(y[:, 1::2, 3:11], approximate="tanh")
        return torch.bmm(z, z.transpose(1, 2).contiguous()) + z[:, :, 0:1].expand(1, 3, 3).contiguous()


@pytest.mark.parametrize("target", ["cpython", "circuitpython"])
def test_transformer_layer_is_one_delegate_call(target):
    model = Attention().eval()
    x = torch.randn(1, 6, 16)
    report = {}
    pte = export(model, (x,), delegate="ulab", report=report)
    assert len(report["delegated"]) == 1 and [op for _, op in Program.load(pte).load_method().step_ops()] == ["delegate:UlabBackend"]
    took = set(report["delegated"][0])
    assert {"aten::_softmax.out", "aten::native_layer_norm.out", "aten::gelu.out", "aten::bmm.out", "aten::where.self_out"} <= took, took
    with torch.no_grad():
        want = model(x)
    if target == "cpython":
        _close(_run_here(pte, (x,)), want)
    else:
        _close(run(pte, (x,), target, repeat=1).outputs[0], want)


def test_transformer_blob_survives_executorch_serializer():
    """The attention blob (its MOVE records are of variable length)
    through ExecuTorch's deserializer and serializer, then run here."""
    from executorch.exir._serialize._program import deserialize_pte_binary, serialize_pte_binary

    model = Attention().eval()
    x = torch.randn(1, 6, 16)
    pte = export(model, (x,), delegate="ulab")
    again = bytes(serialize_pte_binary(deserialize_pte_binary(pte), extract_delegate_segments=True, segment_alignment=16))
    ours, theirs = Program.load(pte), Program.load(again)
    assert bytes(ours.backend_delegate(ours._plans["forward"], 0, "test")[1]) == bytes(
        theirs.backend_delegate(theirs._plans["forward"], 0, "test")[1]
    )
    with torch.no_grad():
        _close(_run_here(again, (x,)), model(x))


def test_data_movement_becomes_blocks_of_strided_views():
    from host_tools.delegates.ulab_transformer import _move_blocks

    idx = torch.arange(16 * 4 * 8).reshape(16, 4, 8)
    blocks = _move_blocks(idx.permute(1, 0, 2), idx.numel())  # a head's rows: a view of [16, 32] per head
    assert blocks == [(h * 16, 16, 32, 0, 1, h * 8, 1) for h in range(4)], blocks
    flat = idx.flatten()
    for m in (idx.permute(2, 0, 1), idx[3:9:2, 1], idx.permute(1, 2, 0)[:, 1::3], idx[:, :, 2:3].expand(16, 4, 8), idx[:1].expand(3, 4, 8)):
        out = torch.zeros(m.shape).reshape(-1, m.shape[-1])
        for r0, n, w, ra, rs, ca, cs in _move_blocks(m, idx.numel()):  # as the device copies them
            rows = slice(ra, ra + (n - 1) * rs + 1, rs) if rs else slice(ra, ra + 1)
            cols = slice(ca, ca + (m.shape[-1] - 1) * cs + 1, cs) if cs else slice(ca, ca + 1)
            out[r0 : r0 + n] += flat.reshape(-1, w)[rows, cols]
        assert torch.equal(out, m.reshape(-1, m.shape[-1]).float()), m.shape


@pytest.mark.parametrize("target", ["circuitpython"])
def test_ulab_backend_on_circuitpython_matches_pytorch(layers_pte, target):
    """The device code under ulab 6.5.3 (2-D arrays only, float32)."""
    _, inputs, want, pte, _ = layers_pte
    res = run(pte, inputs, target, repeat=1)
    _close(res.outputs[0], want)


def test_without_ulab_the_load_fails_naming_backend_and_instruction(layers_pte):
    """unix MicroPython has no ulab: a clear NotSupported at load (no portable fallback)."""
    require("unix")
    _, inputs, _, pte, _ = layers_pte
    with pytest.raises(
        TargetError,
        match=r"NotSupported \(0x10\): instruction 0 \(delegate call, delegates\[0\]\): "
        r"backend 'UlabBackend' is not available on this port \(needs ulab",
    ):
        run(pte, inputs, "unix", repeat=1)


def _xnnpack_pte():
    pytest.importorskip("executorch.backends.xnnpack.partition.xnnpack_partitioner")
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    m = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU()).eval()
    ep = torch.export.export(m, (torch.randn(1, 4),))
    return to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()]).to_executorch().buffer


def test_executorch_xnnpack_program_gets_not_supported_naming_backend_and_instruction():
    pte = _xnnpack_pte()
    with pytest.raises(MpyEtError) as e:
        Program.load(pte).load_method()
    assert str(e.value) == (
        "NotSupported (0x10): instruction 0 (delegate call, delegates[0]): backend 'XnnpackBackend' is not registered "
        "(no such backend); mpy_et knows ['UlabBackend']: re-export without that delegate (portable kernels) "
        "or register_backend() one"
    )


def test_executorch_inline_blob_is_read_in_place_as_executorch_reads_it():
    from executorch.exir._serialize._program import deserialize_pte_binary

    pte = _xnnpack_pte()
    theirs = deserialize_pte_binary(pte).program
    want = theirs.backend_delegate_data[theirs.execution_plan[0].delegates[0].processed.index].data
    program = Program.load(pte)
    backend_id, blob, _ = program.backend_delegate(program._plans["forward"], 0, "test")
    assert backend_id == "XnnpackBackend" and bytes(blob) == bytes(want) and blob.obj is program.buf


@pytest.mark.parametrize("segments", [True, False])
def test_ulab_blob_survives_executorch_serializer(layers_pte, segments):
    """Our program through ExecuTorch's deserializer and serializer (blob in a
    segment, or inline in the flatbuffer): the same blob, and mpy_et runs it."""
    from executorch.exir._serialize._program import deserialize_pte_binary, serialize_pte_binary

    _, inputs, want, pte, _ = layers_pte
    ours = Program.load(pte)
    plan = ours._plans["forward"]
    blobs = [bytes(ours.backend_delegate(plan, i, "test")[1]) for i in range(2)]
    pte_file = deserialize_pte_binary(pte)
    theirs = pte_file.program
    got = [bytes(theirs.backend_delegate_data[d.processed.index].data) for d in theirs.execution_plan[0].delegates]
    assert [d.id for d in theirs.execution_plan[0].delegates] == ["UlabBackend"] * 2 and got == blobs
    again = bytes(serialize_pte_binary(pte_file, extract_delegate_segments=segments, segment_alignment=16))
    program = Program.load(again)
    assert [bytes(program.backend_delegate(program._plans["forward"], i, "test")[1]) for i in range(2)] == blobs
    _close(_run_here(again, inputs), want)


class _Recording:
    """A registered backend wrapping the ulab one, recording the interface calls."""

    def __init__(self):
        from mpy_et.backends.ulab_backend import backend

        self.inner, self.calls = backend, []

    def is_available(self):
        return True

    def init(self, processed, compile_specs):
        self.calls.append(("init", type(processed).__name__))
        return self.inner.init(processed, compile_specs)

    def prepare(self, handle, args):
        self.calls.append(("prepare", len(args)))
        self.inner.prepare(handle, args)

    def execute(self, handle, args):
        self.calls.append(("execute", len(args)))
        self.inner.execute(handle, args)

    def destroy(self, handle):
        self.calls.append(("destroy",))
        self.inner.destroy(handle)


def test_registered_backend_gets_init_prepare_execute_destroy(layers_pte):
    _, inputs, want, pte, _ = layers_pte
    rec = _Recording()
    registry.register_backend("UlabBackend", rec)
    try:
        m = Program.load(pte).load_method()
        for _ in range(2):  # inputs are not preserved: set before each execute()
            m.set_input(0, inputs[0].flatten().tolist())
            m.execute()
        _close(torch.tensor(m.output(0).tolist()), want)
        m.close()
    finally:
        del registry._REGISTERED["UlabBackend"]
    names = [c[0] for c in rec.calls]
    assert names == ["init", "prepare", "init", "prepare", "execute", "execute", "execute", "execute", "destroy", "destroy"], rec.calls
    assert rec.calls[0] == ("init", "memoryview")
    ops = [op for _, op in m.step_ops()]
    assert ops == ["delegate:UlabBackend", "aten::leaky_relu.out", "delegate:UlabBackend"], ops


def test_unavailable_backend_is_not_supported(layers_pte):
    *_, pte, _ = layers_pte

    class Absent(_Recording):
        NEEDS = "needs the test's hardware"

        def is_available(self):
            return False

    registry.register_backend("UlabBackend", Absent())
    try:
        with pytest.raises(
            MpyEtError,
            match=r"instruction 0 \(delegate call, delegates\[0\]\): backend 'UlabBackend' is not "
            r"available on this port \(needs the test's hardware\)",
        ):
            Program.load(pte).load_method()
    finally:
        del registry._REGISTERED["UlabBackend"]


def test_bad_delegate_index_is_invalid_program(layers_pte):
    *_, pte, _ = layers_pte
    program = Program.load(pte)
    with pytest.raises(MpyEtError, match=r"InvalidProgram.*delegate_index 5 out of range \(2 delegates\)"):
        program.backend_delegate(program._plans["forward"], 5, "test")


@pytest.mark.parametrize(
    "word, value, error",
    [
        (0, 0x12345678, r"not a ulab blob \(magic 12345678\)"),
        (7, 99, r"ulab blob: op record at word 7 is malformed"),  # the first op's word count (after 1 output slot)
        (8, 99, r"ulab blob: op record at word 7 is malformed"),  # its opcode
    ],
)
def test_malformed_ulab_blob_is_invalid_program(layers_pte, word, value, error):
    *_, pte, _ = layers_pte
    program = Program.load(pte)
    blob = program.backend_delegate(program._plans["forward"], 0, "test")[1]
    start = blob_offset(program, blob)
    data = bytearray(pte)
    data[start + 4 * word : start + 4 * word + 4] = value.to_bytes(4, "little")
    with pytest.raises(
        MpyEtError, match=r"InvalidProgram \(0x23\): instruction 0 \(delegate call, delegates\[0\]\): backend 'UlabBackend': " + error
    ):
        Program.load(bytes(data)).load_method()


def blob_offset(program, blob):
    """Where a blob (a memoryview into the program) starts in the program's bytes."""
    for off, size in program.segments:
        if bytes(program.buf[off : off + size]) == bytes(blob):
            return off
    raise LookupError("blob")


def test_selective_build_ships_the_backend_only_with_programs_that_use_it(layers_pte, examples):
    from host_tools.targets.run import board_build

    *_, pte, _ = layers_pte
    assert {"backends.__init__", "backends.ulab_backend"} <= set(board_build(pte)[0]["mpy_et"])
    assert not [m for m in board_build(examples["cnn"][3])[0]["mpy_et"] if m.startswith("backends")]


def test_unknown_delegate_name_is_rejected():
    model, inputs = _layers()
    with pytest.raises(ValueError, match=r"delegate='xnnpack': no such backend; choose one of ulab"):
        export(model, inputs, delegate="xnnpack")


def test_executorch_runtime_reads_our_delegate_and_asks_for_the_backend(capfd):
    """ExecuTorch's own runtime parses our program's delegate table: it loads
    the program and, at load_method, looks the backend up by its id."""
    pytest.importorskip("executorch.runtime")
    from executorch.runtime import Runtime

    m = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU()).eval()
    pte = export(m, (torch.randn(1, 4),), delegate="ulab")
    program = Runtime.get().load_program(pte)
    with pytest.raises(RuntimeError, match="Failed to load method forward"):
        program.load_method("forward")
    assert "Backend UlabBackend is not registered" in capfd.readouterr().err

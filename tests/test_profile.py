"""Event tracer (mpy_et/event_tracer.py), host_tools.run(..., profile=...) and
its ETDump, read back by ExecuTorch's own Inspector."""

import json

import pytest
import torch
from conftest import TARGETS

import mpy_et
from host_tools import export, run
from host_tools.analysis.macs import count_macs
from host_tools.cli import main
from host_tools.devtools import etdump
from host_tools.devtools.profile import from_trace
from host_tools.lowering.ir import tensor_bytes
from host_tools.zoo import build
from mpy_et.errors import INVALID_ARGUMENT, INVALID_STATE
from mpy_et.event_tracer import EventTracer


@pytest.fixture(scope="module")
def mlp_int8():
    model, inputs = build("mlp")
    g = torch.Generator().manual_seed(0)
    calibration = [tuple(torch.randn(t.shape, generator=g) for t in inputs) for _ in range(8)]
    return export(model, tuple(inputs), quantize="int8", calibration=calibration), tuple(inputs), count_macs(model, tuple(inputs))


def _inspector_events(data, tmp_path):
    from executorch.devtools import Inspector

    path = tmp_path / "run.etdp"
    path.write_bytes(data)
    blocks = Inspector(etdump_path=str(path)).event_blocks
    assert len(blocks) == 1, blocks
    return blocks[0].events


def test_tracer_records_each_step_between_two_ticks(mlp_int8):
    pte, inputs, _ = mlp_int8
    method = mpy_et.Program.load(pte).load_method()
    tracer = EventTracer(runs=2)
    method.set_event_tracer(tracer)
    steps = method.step_ops()
    assert list(method.iter_step_ops()) == steps  # what the board harness prints: no list of pairs
    assert tracer.per_run == 2 * len(steps) + 2 and tracer.runs == 0
    for _ in range(2):
        method.set_input(0, tensor_bytes(inputs[0]))
        method.execute()
    assert tracer.runs == 2
    for r in range(2):
        ticks = tracer.run_ticks(r)
        assert len(ticks) == tracer.per_run and ticks == sorted(ticks), ticks
    with pytest.raises(mpy_et.MpyEtError, match="full") as e:
        method.execute()
    assert e.value.code == INVALID_STATE and tracer.runs == 2
    tracer.reset()
    method.set_input(0, tensor_bytes(inputs[0]))
    method.execute()
    assert tracer.runs == 1
    method.set_event_tracer(None)  # stops recording
    method.execute()
    assert tracer.runs == 1


def test_tracer_rejects_bad_arguments():
    for runs in (0, -1, 1.5, None):
        with pytest.raises(mpy_et.MpyEtError) as e:
            EventTracer(runs=runs)
        assert e.value.code == INVALID_ARGUMENT
    with pytest.raises(mpy_et.MpyEtError, match="not bound") as e:
        EventTracer().begin()
    with pytest.raises(mpy_et.MpyEtError, match="run 0 does not exist"):
        EventTracer().run_ticks(0)


def test_trace_that_does_not_fit_the_steps_is_an_error():
    steps = [(0, "aten::add.out"), (1, "aten::mul.out")]
    with pytest.raises(mpy_et.MpyEtError, match="has 5 ticks; 2 steps need 6") as e:
        from_trace([[0, 1, 2, 3, 4]], steps, "cpython")
    assert e.value.code == INVALID_ARGUMENT
    with pytest.raises(mpy_et.MpyEtError, match="no profiled runs"):
        from_trace([], steps, "cpython")
    with pytest.raises(mpy_et.MpyEtError, match="bad times"):
        etdump.write([[("aten::add.out", 0, 10, 5)]])


def test_ticks_that_wrap_are_unwrapped():
    """time.ticks_us wraps at 2**30 on 32-bit ports: durations stay positive."""
    top = (1 << 30) - 3
    profile, _ = from_trace([[top, top + 1, 2, 4, 9, 10]], [(0, "a.out"), (1, "b.out")], "wasm")
    assert [r["time"] for r in profile.instructions] == [4, 5], profile.instructions
    assert profile.execute == 13 and profile.overhead == 4, profile


@pytest.mark.parametrize("target", TARGETS)
def test_profile_and_etdump_on_every_target(mlp_int8, target, tmp_path):
    pte, inputs, macs = mlp_int8
    plain = run(pte, inputs, target, repeat=1)
    res = run(pte, inputs, target, repeat=1, profile=2)
    assert torch.equal(res.outputs[0], plain.outputs[0]), target  # tracing changes no result
    steps = mpy_et.Program.load(pte).load_method().step_ops()
    prof = res.profile
    assert prof.runs == 2 and [(r["instruction"], r["operator"]) for r in prof.instructions] == steps
    assert prof.unit == ("instructions" if target.startswith("cortex") else "us")
    assert sum(r["macs"] for r in prof.instructions) == macs
    assert all(r["time"] >= 0 for r in prof.instructions) and prof.overhead >= 0
    assert prof.execute == pytest.approx(sum(r["time"] for r in prof.instructions) + prof.overhead, abs=prof.execute * 0.2 + 2)
    linear = next(op for op in prof.operators if op["operator"] == "mpy_et_quant::linear_packed.out")
    assert (
        linear["calls"] == 3
        and linear["time"] > 0
        and linear["per_mac"] == pytest.approx(linear["time"] * (1 if prof.unit == "instructions" else 1000) / macs)
    )
    if target != "cpython":  # MicroPython ports: the traced int8 runs allocated nothing
        assert res.stats["profile_heap_bytes"] == 0, res.stats
    if target in ("unix", "cortex-m3", "cortex-m7"):  # the runtime locked the heap for every traced run
        assert res.stats["execute_heap_locked"] is True, res.stats
    # ExecuTorch's Inspector: one event per instruction, named by its operator,
    # each with one duration per run, plus the whole execute()
    events = _inspector_events(res.etdump, tmp_path)
    assert [(e._instruction_id, e.name) for e in events] == steps + [(-1, "Method::execute")]
    scale = 1e-6  # the Inspector's default: ns in the file, ms shown
    for e, row in zip(events, prof.instructions):
        assert len(e.perf_data.raw) == 2, e
        if target.startswith("cortex"):  # deterministic instruction counts, read to the microsecond (1000)
            assert all(abs(t - row["time"] * scale) <= 1000 * scale for t in e.perf_data.raw), (e.name, e.perf_data.raw, row)
    assert events[-1].perf_data.raw[0] > 0


def test_cli_profile_prints_tables_and_writes_chart_and_etdump(mlp_int8, tmp_path, capsys):
    path = tmp_path / "mlp.pte"
    path.write_bytes(mlp_int8[0])
    png, etdp = tmp_path / "profile.png", tmp_path / "mlp.etdp"
    buf = tmp_path / "mlp.bin"
    args = ["profile", str(path), "--target", "unix", "--runs", "2", "--etdump", str(etdp), "--debug-buffer", str(buf)]
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert main(args + ["--plot", str(png)]) == 1
        assert "needs matplotlib" in capsys.readouterr().err
        assert main(args) == 0  # the tables without the chart
    else:
        assert main(args + ["--plot", str(png)]) == 0
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    out = capsys.readouterr().out
    assert "inputs: random (seed 0)" in out and "mpy_et_quant::linear_packed.out" in out and "(dispatch loop and tracer)" in out, out
    assert "allocated by a traced execute(): 0 B (heap locked)" in out, out
    events = _inspector_events(etdp.read_bytes(), tmp_path)
    assert [e.name for e in events][-1] == "Method::execute" and all(len(e.perf_data.raw) == 2 for e in events)
    assert len(buf.read_bytes()) > 0
    assert main(["profile", str(path), "--debug-buffer", str(buf)]) == 1
    assert "--debug-buffer goes with --etdump" in capsys.readouterr().err
    assert main(["profile", str(path), "--target", "cpython", "--runs", "1", "--json", "--top", "2"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["unit"] == "us" and info["runs"] == 1 and len(info["instructions"]) == 5, info
    assert {op["operator"] for op in info["operators"]} >= {"mpy_et_quant::linear_packed.out"}


def test_cli_profile_bad_input_is_one_line(tmp_path, capsys, mlp_int8):
    assert main(["profile", str(tmp_path / "missing.pte")]) == 1
    assert "no such file" in capsys.readouterr().err
    bad = tmp_path / "bad.pte"
    bad.write_bytes(b"not a program at all")
    assert main(["profile", str(bad)]) == 1
    assert "is not a program mpy_et can run" in capsys.readouterr().err
    good = tmp_path / "mlp.pte"
    good.write_bytes(mlp_int8[0])
    assert main(["profile", str(good), "--runs", "0"]) == 1
    assert "--runs must be at least 1" in capsys.readouterr().err


@pytest.mark.parametrize("target", ["unix", "cortex-m3"])
def test_capture_copies_every_step_output_without_allocating(mlp_int8, target, tmp_path):
    from executorch.devtools import Inspector

    pte, inputs, _ = mlp_int8
    res = run(pte, inputs, target, repeat=1, profile=1, capture=True)
    assert res.stats["execute_heap_locked"] is True and res.stats["profile_heap_bytes"] == 0, res.stats
    steps = [(s["instruction"], s["operator"]) for s in res.intermediates]
    assert steps == mpy_et.Program.load(pte).load_method().step_ops()
    assert torch.equal(res.intermediates[-1]["outputs"][0], res.outputs[0])  # the last step writes the output
    first = res.intermediates[0]["outputs"][0]
    assert first.dtype == torch.int8 and tuple(first.shape) == tuple(inputs[0].shape)  # quantize_per_tensor's int8 input copy
    # the ETDump carries them as debug events into the debug buffer: the Inspector shows each step's output
    (tmp_path / "c.etdp").write_bytes(res.etdump)
    (tmp_path / "c.bin").write_bytes(res.debug_buffer)
    events = Inspector(etdump_path=str(tmp_path / "c.etdp"), debug_buffer_path=str(tmp_path / "c.bin")).event_blocks[0].events
    for e, step in zip(events, res.intermediates):
        assert e._instruction_id == step["instruction"] and len(e.perf_data.raw) == 1, e
        assert len(e.debug_data) == 1 and torch.equal(e.debug_data[0], step["outputs"][0]), (e.name, e.debug_data)


def test_etrecord_maps_inspector_events_to_modules(tmp_path, capsys):
    """Our export's ETRecord + a device ETDump: ExecuTorch's Inspector names
    each event's graph node, module and source line (fp32; batch norm folded)."""
    from executorch.devtools import Inspector

    pte, record = tmp_path / "ds_cnn.pte", tmp_path / "ds_cnn.etrecord.bin"
    assert main(["export", "--zoo", "ds_cnn", "-o", str(pte), "--etrecord", str(record)]) == 0
    assert "wrote %s: ETRecord" % record in capsys.readouterr().out
    res = run(str(pte), build("ds_cnn")[1], "cpython", repeat=1, profile=1)
    etdp = tmp_path / "ds_cnn.etdp"
    etdp.write_bytes(res.etdump)
    events = Inspector(etdump_path=str(etdp), etrecord=str(record)).event_blocks[0].events
    first = events[0]
    assert first.name == "aten::convolution.out" and first.op_types == ["convolution.default"], first
    modules = [path for stack in first.module_hierarchy.values() for path, _ in stack.values()]
    assert "features.0.0" in modules, first.module_hierarchy  # the first Conv2d of the user's model
    assert any("kws.py" in (t or "") for t in first.stack_traces.values()), first.stack_traces
    assert all(e.debug_handles for e in events if e.name != "Method::execute"), [(e.name, e.debug_handles) for e in events]


def test_instruction_macs_of_packed_int8_convolutions_equal_the_graphs():
    """int8 conv / linear weights are packed with padded rows (host_tools/quantize/pack.py):
    the MACs per instruction still count the real terms, as count_macs does on the model."""
    from host_tools.analysis.macs import instruction_macs

    model, inputs = build("lenet5")
    pte = export(model, tuple(inputs), quantize="int8", calibration=[tuple(inputs)])
    assert sum(instruction_macs(pte).values()) == count_macs(model, tuple(inputs))


def test_int8_etrecord_maps_inspector_events_to_modules(tmp_path, capsys):
    """int8 too: the fused mpy_et_quant nodes keep the module and source line of the
    op they replace, so the Inspector names the user's module for an int8 event."""
    from executorch.devtools import Inspector

    pte, record = tmp_path / "lenet5.pte", tmp_path / "lenet5.etrecord.bin"
    assert main(["export", "--zoo", "lenet5", "--quantize", "int8", "-o", str(pte), "--etrecord", str(record)]) == 0
    capsys.readouterr()
    res = run(str(pte), build("lenet5")[1], "cpython", repeat=1, profile=1)
    etdp = tmp_path / "lenet5.etdp"
    etdp.write_bytes(res.etdump)
    events = Inspector(etdump_path=str(etdp), etrecord=str(record)).event_blocks[0].events
    conv = next(e for e in events if e.name == "mpy_et_quant::conv2d_packed.out")
    modules = [path for stack in conv.module_hierarchy.values() for path, _ in stack.values()]
    assert "conv1" in modules, conv.module_hierarchy  # LeNet5's first Conv2d
    assert any("lenet.py" in (t or "") for t in conv.stack_traces.values()), conv.stack_traces

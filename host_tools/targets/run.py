"""run(): execute a .pte on a target and bring outputs and stats back."""

import json
import os
from dataclasses import dataclass, field

import torch

from host_tools.lowering.ir import SCALAR_TYPES, tensor_bytes
from host_tools.targets import BOARD_TARGETS, TargetError, run_code
from host_tools.targets.dim_orders import from_memory, io_orders, to_memory

_SCRIPT = os.path.join(os.path.dirname(__file__), "device", "run_program.py")
_TORCH_DTYPE = {code: dt for dt, code in SCALAR_TYPES.items()}
_MARK = "MPY_ET_RESULT "
_OUTPUT = "MPY_ET_OUTPUT "
_ERROR = "MPY_ET_ERROR "
_TRACE = "MPY_ET_TRACE "
_STEPS = "MPY_ET_STEPS "
_DEBUG = "MPY_ET_DEBUG "


@dataclass
class RunResult:
    """Outputs (torch tensors) and stats measured inside the target.

    stats keys: load_us (Program.load + load_method; the second with
    reload=True), program_load_us, first_method_load_us (load_method,
    importing the kernel modules), method_load_us (with reload=True: a
    second load_method, kernel modules already imported; else None),
    execute_us (median of `repeat` runs), execute_us_min,
    execute_heap_bytes (bytes allocated by one execute(); None on CPython),
    execute_heap_locked (every step is allocation-free, so execute() ran with
    the heap locked: mpy_et/noalloc.py),
    arena_bytes (planned buffers), program_heap_bytes,
    first_load_method_heap_bytes (heap kept after a collection, arena and the
    imported kernel modules included), load_method_heap_bytes (the same for
    the second load, with reload=True; else None), load_method_alloc_bytes
    (all bytes the (second) load_method allocated, MicroPython targets),
    heap_free_before_load / heap_free_after_load (gc.mem_free()
    around Program.load + the first load_method, MicroPython targets),
    heap_lock_ok (execute() ran under micropython.heap_lock(); None unless
    asked). Emulated boards count instructions (1 us = 1000 instructions):
    execute_instructions, load_instructions. With profile: profile_execute_us
    (median execute() with the event tracer), profile_heap_bytes (bytes one
    traced execute() allocated), profile_unit.

    profile (with run(..., profile=...)): a host_tools.devtools.profile.Profile
    (per instruction and per operator: time, share, MACs, cost per MAC);
    etdump: the same runs as ExecuTorch ETDump bytes (executorch.devtools.Inspector).
    """

    outputs: list
    stats: dict = field(default_factory=dict)
    target: str = ""
    profile: object = None
    etdump: bytes = None
    trace: dict = None  # raw: {"runs": [[tick, ...], ...], "steps": [(instruction, operator), ...], "debug": bytes or None}
    intermediates: list = None  # with capture: per step {"instruction", "operator", "outputs": [torch tensors]}
    debug_buffer: bytes = None  # with capture: the device's debug buffer (ETDump's debug events point into it)


def run(
    pte,
    inputs,
    target="cpython",
    *,
    method="forward",
    repeat=3,
    heap_lock=False,
    timeout=600,
    heap_bytes=None,
    deploy="romfs",
    stream=False,
    reload=False,
    profile=False,
    capture=False,
    kernels=None,
    free_at_load=None,
):
    """Run a program on a target.

    Args:
        pte: path of a .pte file, or its bytes.
        inputs: sequence of torch tensors, one per method input.
        target: "cpython", "unix" (MicroPython unix port), "wasm"
            (MicroPython WebAssembly, 32-bit, no native emitter) or an
            emulated board, "cortex-m3" (~220 KB heap) / "cortex-m3-large"
            (~3.5 MB heap) / "cortex-m7" (~440 KB heap, double-precision
            floats); boards get only the kernels the program needs.
        method: method name.
        repeat: timed executions after one warm-up (the median is reported).
        heap_lock: also run execute() under micropython.heap_lock() and report
            heap_lock_ok (MicroPython targets only).
        timeout: seconds.
        heap_bytes: MicroPython heap size for the unix target.
        deploy: on boards, "romfs" (compiled .mpy and the .pte in flash) or
            "mount" (.py sources over mpremote mount).
        stream: load with Program.load(path, stream=True): constants stay in
            the file and are read before each instruction that uses them.
        free_at_load: MicroPython targets: allocate a ballast first so that
            only this many heap bytes are free when Program.load starts (does
            the load fit a board with that much heap left?).
        reload: load the method a second time (kernel modules imported) and
            report that load's time and heap too; off by default, so that
            measuring does not change what fits on a small board.
        profile: True (`repeat` runs) or a number of runs: after the timed
            runs, execute that often with an event tracer
            (mpy_et/event_tracer.py) and return result.profile and
            result.etdump.
        capture: with profile, also copy every step's outputs in the last
            profiled run (EventTracer(capture=True)) and return them as
            result.intermediates; result.etdump then holds them as debug
            events into result.debug_buffer (Inspector's debug_buffer_path).
        kernels: a .py file defining KERNELS, the device kernels of the
            program's custom operators (host_tools/custom_kernels.py): put
            next to the program on the target and passed to load_method.
    Returns:
        RunResult.
    Raises:
        TargetError: the target failed; the message carries its traceback.
    """
    if heap_lock and target == "cpython":
        raise ValueError("heap_lock needs a MicroPython target")
    inputs = quantized_inputs(pte, inputs)
    in_orders, out_orders = io_orders(_read(pte), method)
    runs = (max(1, repeat) if profile is True else int(profile)) if profile else 0
    if capture and not runs:
        raise ValueError("capture=True needs profile")
    files, script = job_files(pte, inputs, method, repeat, heap_lock, stream, reload, runs, capture, free_at_load, in_orders)
    stage_kernels(files, kernels)
    packages, registry = board_build(files["model.pte"]) if target in BOARD_TARGETS else (None, None)
    try:
        stdout = run_code(
            target, script, files, timeout=timeout, heap_bytes=heap_bytes, packages=packages, deploy=deploy, registry=registry
        )
    except TargetError as e:
        # the device script's own line (a heap that ran out, and while doing what) says it best
        line = next((ln.strip() for ln in str(e).splitlines() if ln.strip().startswith(_ERROR)), None)
        if line is None:
            raise
        raise TargetError("%s: %s" % (target, line[len(_ERROR) :])) from e
    res = parse_result(stdout, target)
    res.outputs = [from_memory(t, o) for t, o in zip(res.outputs, out_orders + [None] * len(res.outputs))]
    if target in BOARD_TARGETS:  # QEMU -icount shift=0: 1 us of board time = 1000 instructions
        res.stats["execute_instructions"] = res.stats["execute_us"] * 1000
        res.stats["load_instructions"] = res.stats["load_us"] * 1000
        if runs:
            res.stats["profile_execute_instructions"] = res.stats["profile_execute_us"] * 1000
    if runs:
        from host_tools.analysis.macs import instruction_macs
        from host_tools.devtools.profile import from_trace

        if res.trace is None:
            raise TargetError("%s printed no profile" % target)
        data = files["model.pte"]
        if not isinstance(data, bytes):
            with open(data, "rb") as f:
                data = f.read()
        layout = None
        if capture:
            from host_tools.devtools.capture import debug_layout, intermediates

            res.intermediates = intermediates(data, res.trace["steps"], res.trace["debug"], method)
            res.debug_buffer = res.trace["debug"]
            layout = debug_layout(data, res.trace["steps"], method)
        macs = instruction_macs(data, method)
        totals = bool(res.stats.get("profile_totals"))
        res.profile, res.etdump = from_trace(res.trace["runs"], res.trace["steps"], target, macs, method, layout, totals)
    return res


def _read(pte):
    if isinstance(pte, (bytes, bytearray)):
        return pte
    with open(pte, "rb") as f:
        return f.read()


def stage_kernels(files, kernels):
    """Add a custom kernels file to a job's files and name it in job.json."""
    if kernels is None:
        return
    from host_tools.custom_kernels import load, module_name

    path, _ = load(kernels)
    if path is None:
        raise ValueError("kernels: give the path of the .py file, to copy to the target")
    files[module_name(path) + ".py"] = path
    job = json.loads(files["job.json"])
    job["kernels"] = module_name(path)
    files["job.json"] = json.dumps(job).encode()


def board_build(pte):
    """(packages, registry source) a board is deployed with for a program: a
    selective build, the program's kernels and their registry only."""
    from host_tools.deploy.build import registry_source
    from host_tools.deploy.selective import device_modules, program_backends, program_operators
    from portable_kernels.registry import KERNELS

    ops = [op for op in program_operators(pte) if op in KERNELS]
    return device_modules(ops, backends=program_backends(pte)), registry_source(ops, KERNELS, None)  # no rebuild hint: nothing was flashed


def quantized_inputs(pte, inputs):
    """Float inputs quantized for a program exported with int8 inputs
    (export(..., quantized_io=True)); other inputs as given."""
    from host_tools.quantize import io as io_quant
    from mpy_et import Program

    if not isinstance(pte, (bytes, bytearray)):
        with open(pte, "rb") as f:
            pte = f.read()
    io = io_quant.read(Program.load(pte))
    if not io:
        return inputs
    return [io_quant.quantize(t, *q) if q and t.is_floating_point() else t for t, q in zip(inputs, io["inputs"])]


def run_dist_unix(dist, pte, inputs, *, heap_bytes=None, repeat=1, timeout=600, reload=False):
    """Run a program on unix MicroPython with nothing but a dist from `mpy-et
    build --target unix-x64` importable (as deployed: .mpy, trimmed kernels).
    reload: as run()'s."""
    import subprocess
    import tempfile

    from host_tools.targets import micropython_binary

    files, script = job_files(pte, inputs, repeat=repeat, reload=reload)
    with tempfile.TemporaryDirectory(prefix="mpy_et_dist_") as data:
        for name, content in files.items():
            if not isinstance(content, (bytes, bytearray)):
                with open(content, "rb") as f:
                    content = f.read()
            with open(os.path.join(data, name), "wb") as f:
                f.write(content)
        main = os.path.join(data, "main.py")
        with open(main, "w") as f:
            f.write("DATA_DIR = %r\n" % data + script)
        cmd = [micropython_binary()] + (["-X", "heapsize=%d" % heap_bytes] if heap_bytes else []) + [main]
        proc = subprocess.run(cmd, env=dict(os.environ, MICROPYPATH=os.fspath(dist)), capture_output=True, text=True, timeout=timeout)
    if proc.returncode:
        raise TargetError("unix (dist %s) exited with code %d:\n%s%s" % (dist, proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:]))
    return parse_result(proc.stdout, "unix")


def job_files(
    pte,
    inputs,
    method="forward",
    repeat=3,
    heap_lock=False,
    stream=False,
    reload=False,
    profile=0,
    capture=False,
    free_at_load=None,
    dim_orders=None,
):
    """What a device needs to run a program: (files, script).

    dim_orders: per input, the memory order its bytes are written in (None: contiguous).

    files: dict name -> bytes or host path (model.pte, input<i>.bin, job.json),
    read by `script` (host_tools/targets/device/run_program.py) from DATA_DIR.
    """
    files = {}
    if isinstance(pte, (bytes, bytearray)):
        files["model.pte"] = bytes(pte)
    else:
        files["model.pte"] = os.fspath(pte)
    specs = []
    for i, t in enumerate(inputs):
        t = t.detach()
        name = "input%d.bin" % i
        files[name] = tensor_bytes(to_memory(t, dim_orders[i] if dim_orders and i < len(dim_orders) else None))
        specs.append({"file": name, "dtype": SCALAR_TYPES[t.dtype], "sizes": list(t.shape)})
    job = {
        "pte": "model.pte",
        "method": method,
        "inputs": specs,
        "repeat": max(1, repeat),
        "heap_lock": heap_lock,
        "stream": stream,
        "reload": reload,
        "free_at_load": free_at_load,
        "profile": profile,
        "capture": capture,
    }
    files["job.json"] = json.dumps(job).encode()
    with open(_SCRIPT) as f:
        return files, f.read()


def parse_results(stdout, target):
    """The RunResults in the output of run_program.py, one per run, in order.

    Raises TargetError naming what the device was doing when it printed
    MPY_ET_ERROR (a heap that ran out) or when it printed no result."""
    results, outputs, traces, steps, debug = [], [], [], None, None
    for line in stdout.splitlines():
        if line.startswith(_OUTPUT):
            _, i, dtype, sizes, data = (line.split(" ") + [""])[:5]
            dt = _TORCH_DTYPE[int(dtype)]
            raw = bytearray.fromhex(data)
            t = torch.frombuffer(raw, dtype=dt) if raw else torch.empty(0, dtype=dt)
            outputs.append(t.reshape([int(d) for d in sizes.split(",") if d]).clone())
        elif line.startswith(_TRACE):
            traces.append([int(t) for t in line.split()[1:]])
        elif line.startswith(_DEBUG):
            debug = bytes.fromhex(line[len(_DEBUG) :].strip())
        elif line.startswith(_STEPS):
            items = line.split()[1:]
            steps = [(int(i), name) for i, name in zip(items[::2], items[1::2])]
        elif line.startswith(_MARK):
            trace = {"runs": traces, "steps": steps, "debug": debug} if steps is not None else None
            results.append(RunResult(outputs, json.loads(line[len(_MARK) :]), target, trace=trace))
            outputs, traces, steps, debug = [], [], None, None
        elif line.startswith(_ERROR):
            raise TargetError("%s: %s" % (target, line[len(_ERROR) :]))
    if not results:
        raise TargetError("%s printed no result:\n%s" % (target, stdout[-4000:]))
    return results


def parse_result(stdout, target):
    """The RunResult in the output of run_program.py; TargetError if none."""
    return parse_results(stdout, target)[0]

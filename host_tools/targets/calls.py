"""run_calls(): a sequence of method calls on one loaded program on a target.

What a stateful program needs to be checked: the state (mutable buffers) a
method keeps carries from one call to the next, and calls to other methods
of the same program (e.g. `reset`) or Method.reset_state() change it.
"""

import json
import os

from host_tools.lowering.ir import SCALAR_TYPES, tensor_bytes
from host_tools.targets import BOARD_TARGETS, TargetError, run_code
from host_tools.targets.run import board_build, parse_results, stage_kernels

_SCRIPT = os.path.join(os.path.dirname(__file__), "device", "run_calls.py")
RESET_STATE = "reset_state"


def run_calls(pte, calls, target="cpython", *, timeout=600, heap_bytes=None, deploy="romfs", kernels=None):
    """Make `calls` in order on one loaded program on `target`.

    Args:
        pte: path of a .pte file, or its bytes.
        calls: list of (method name, inputs): inputs a sequence of torch
            tensors (execute the method on them) or the string "reset_state"
            (call Method.reset_state()). Each method is loaded once, at its
            first call.
        target, timeout, heap_bytes, deploy, kernels: as host_tools.run.
    Returns:
        One host_tools.targets.run.RunResult per call: .outputs (none for
        reset_state) and .stats: call, method, action, execute_us (the
        execute() or reset_state()), set_input_us (the call's set_input()s:
        a dynamic input's resize), execute_heap_bytes (bytes it allocated;
        None on CPython), execute_heap_locked (every step allocation-free:
        execute() ran with the heap locked), reset_heap_locked (reset_state()
        ran under micropython.heap_lock() without allocating), and at a
        method's first call load_us, arena_bytes, state_bytes. Emulated boards
        also give execute_instructions (QEMU counts instructions).
    Raises:
        TargetError: the target failed; the message carries its traceback.
        ValueError: a call that is not (name, inputs) or (name, "reset_state").
    """
    if isinstance(pte, (bytes, bytearray)):
        files = {"model.pte": bytes(pte)}
    else:
        files = {"model.pte": os.fspath(pte)}
    specs = []
    for k, call in enumerate(calls):
        if not (isinstance(call, (tuple, list)) and len(call) == 2 and isinstance(call[0], str)):
            raise ValueError("call %d: expected (method name, inputs) or (method name, %r), got %r" % (k, RESET_STATE, call))
        name, inputs = call
        if isinstance(inputs, str):
            if inputs != RESET_STATE:
                raise ValueError("call %d: unknown action %r (only %r)" % (k, inputs, RESET_STATE))
            specs.append({"method": name, "action": RESET_STATE, "inputs": []})
            continue
        tensors = []
        for i, t in enumerate(inputs):
            t = t.detach().contiguous()
            fname = "call%d_input%d.bin" % (k, i)
            files[fname] = tensor_bytes(t)
            tensors.append({"file": fname, "dtype": SCALAR_TYPES[t.dtype], "sizes": list(t.shape)})
        specs.append({"method": name, "action": "execute", "inputs": tensors})
    files["job.json"] = json.dumps({"pte": "model.pte", "calls": specs}).encode()
    stage_kernels(files, kernels)
    with open(_SCRIPT) as f:
        script = f.read()
    packages, registry = board_build(files["model.pte"]) if target in BOARD_TARGETS else (None, None)
    stdout = run_code(target, script, files, timeout=timeout, heap_bytes=heap_bytes, packages=packages, deploy=deploy, registry=registry)
    results = parse_results(stdout, target)
    if len(results) != len(calls):
        raise TargetError("%s: %d call results for %d calls:\n%s" % (target, len(results), len(calls), stdout[-2000:]))
    if target in BOARD_TARGETS:  # QEMU -icount shift=0: 1 us of board time = 1000 instructions
        for r in results:
            r.stats["execute_instructions"] = r.stats["execute_us"] * 1000
            if "set_input_us" in r.stats:
                r.stats["set_input_instructions"] = r.stats["set_input_us"] * 1000
    return results


def default_calls(example_inputs, methods=None):
    """Calls that show state at work: forward three times, each other method
    once, forward, reset_state, forward."""
    fwd = ("forward", tuple(example_inputs))
    others = [(name, tuple(inputs)) for name, inputs in (methods or {}).items()]
    return [fwd, fwd, fwd] + others + [fwd, ("forward", RESET_STATE), fwd]


def reference_outputs(model, calls):
    """PyTorch's outputs for each call (a list of tensors; [] for
    reset_state), made on a copy of `model`, so its buffers stay as they are.
    reset_state puts every buffer back to its value before the first call."""
    import copy

    import torch

    model = copy.deepcopy(model)
    initial = {name: b.detach().clone() for name, b in model.named_buffers()}
    out = []
    with torch.no_grad():
        for name, inputs in calls:
            if isinstance(inputs, str):
                for b_name, b in model.named_buffers():
                    b.copy_(initial[b_name])
                out.append([])
                continue
            got = getattr(model, name)(*inputs)
            got = [] if got is None else list(got) if isinstance(got, (tuple, list)) else [got]
            out.append([t.detach().clone() for t in got])
    return out


def compare(results, expected):
    """Print each call's outputs against PyTorch's; return the largest |difference|."""
    worst = 0.0
    for k, (res, want) in enumerate(zip(results, expected)):
        s = res.stats
        line = "call %d %s.%s" % (k, s["method"], s["action"])
        if len(res.outputs) != len(want):
            print("%s: %d outputs, PyTorch %d" % (line, len(res.outputs), len(want)))
            return float("inf")
        diffs = []
        for got, w in zip(res.outputs, want):
            if got.shape != w.shape or got.dtype != w.dtype:
                print("%s: %s %s, PyTorch %s %s" % (line, got.dtype, list(got.shape), w.dtype, list(w.shape)))
                return float("inf")
            diffs.append((got.double() - w.double()).abs().max().item() if got.numel() else 0.0)
        worst = max([worst] + diffs)
        cost = s.get("execute_instructions")
        cost = "%d instructions" % cost if cost is not None else "%d us" % s["execute_us"]
        heap = s.get("execute_heap_bytes")
        print(
            "%s: max |mpy_et - PyTorch| = %s, %s, %s allocated%s"
            % (
                line,
                "%.3g" % max(diffs) if diffs else "-",
                cost,
                "n/a" if heap is None else "%d B" % heap,
                " (heap locked)" if s.get("execute_heap_locked") else "",
            )
        )
    return worst

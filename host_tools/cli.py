"""The `mpy-et` command: export, run, inspect, demo; build, flash, freeze, mip
(host_tools/deploy/commands.py); profile (host_tools/devtools/commands.py).

Errors reach the user as one line on stderr and a non-zero exit status;
`--debug` shows the traceback instead.
"""

import argparse
import os
import sys
import warnings

from host_tools.cli_support import check_program as _check_program
from host_tools.cli_support import load_model_file, load_model_namespace, reference_path
from host_tools.cli_support import run_or_fail as _run
from host_tools.errors import CliError
from host_tools.targets import TARGETS

_EXAMPLES = os.path.join(os.path.dirname(__file__), "examples")


def _version():
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mpy-et")
    except PackageNotFoundError:  # running from a source tree that is not installed
        return "unknown (not installed)"


_PATCH = {"ram": True, "arena": {"instruction_bytes": 0}}  # --patch choices: export(patch=...)


def _patched(info):
    if not info["patched"]:
        return "no stage lowers the RAM"
    sub = " (the stem in sub-bands of %d row(s))" % info["sub"] if info.get("sub") else ""
    return "%d bands%s" % (len(info["bands"]), sub)


def cmd_export(args):
    import torch

    from host_tools import export
    from host_tools.analysis.inspect_pte import summary
    from host_tools.custom_kernels import load

    if (args.model is None) == (args.zoo is None):
        raise CliError("export takes a model file or --zoo NAME (one of them)")
    if args.zoo is not None:
        from host_tools.zoo import build

        try:
            model, inputs = build(args.zoo)
        except KeyError as e:
            raise CliError(e.args[0]) from e
        args.model = "zoo model %s" % args.zoo
        ns = {}
    else:
        model, inputs, ns = load_model_namespace(args.model)
    quant = {}
    if getattr(args, "quantize", None):
        from host_tools.quantize.pt2e import cli_options

        quant = cli_options(args.quantize, args.calibration, inputs, CliError, args.quantized_io)
    elif args.quantized_io:
        raise CliError("--quantized-io needs --quantize int8")
    kw = dict(quant, report=quant.get("report", {}))  # the report also carries the graph, for --etrecord
    if ns.get("methods"):
        kw["methods"] = ns["methods"]
    kernels = args.kernels or ns.get("kernels")  # custom operators' device kernels
    if kernels:
        kw["kernels"] = kernels
    if args.delegate:
        kw["delegate"] = args.delegate
    if args.patch:
        kw["patch"] = _PATCH[args.patch]
    dynamic = _dynamic_shapes(args.dynamic, inputs) if args.dynamic else ns.get("dynamic_shapes")
    if dynamic is not None:
        kw["dynamic_shapes"] = dynamic
    data = _export(export, model, inputs, args.output, args.model, **kw)
    patched = kw["report"].get("patch")
    if patched:
        print(
            "patch: %s; peak %d -> %d bytes, MACs %d -> %d"
            % (
                _patched(patched),
                patched["peak_before"],
                patched["peak_after"],
                patched["macs_before"],
                patched["macs_after"],
            )
        )
    if kw["report"].get("delegated"):
        runs = kw["report"]["delegated"]
        print("delegated to %s: %d call(s) replacing %d operator call(s)" % (args.delegate, len(runs), sum(len(r) for r in runs)))
    if dynamic is not None or _keeps_state(data, kernels):  # `run` makes the calls in order, each against PyTorch
        from host_tools.targets.calls import default_calls, reference_outputs

        calls = ns.get("calls") or default_calls(inputs, ns.get("methods"))
        torch.save({"calls": calls, "call_outputs": reference_outputs(model, calls)}, reference_path(args.output))
        print(
            "wrote %s (%d bytes): %d methods, %d calls recorded for `mpy-et run`"
            % (args.output, len(data), len(kw.get("methods", {})) + 1, len(calls))
        )
        print(summary(data, load(kernels)[1]))
        return
    with torch.no_grad():
        expected = model(*inputs)
    expected = list(expected) if isinstance(expected, (tuple, list)) else [expected]
    saved = {"inputs": list(inputs), "outputs": expected}
    program_inputs = list(inputs)  # what the program takes (int8 with --quantized-io)
    if quant:  # `run` compares an int8 program with the host integer reference (exact), and shows the fp32 gap
        ref_inputs = inputs
        io = quant["report"].get("io_quantization")
        if io:  # the reference graph takes the int8 inputs `run` makes from the float ones
            from host_tools.quantize.io import quantize

            ref_inputs = program_inputs = [quantize(t, *q) if q else t for t, q in zip(inputs, io["inputs"])]
        with torch.no_grad():
            ours = quant["report"]["reference"](*ref_inputs)
        saved = {"inputs": list(inputs), "outputs": list(ours) if isinstance(ours, (tuple, list)) else [ours], "fp32_outputs": expected}
    if kernels:
        saved["kernels"] = os.path.abspath(kernels)  # `run` stages them on the target
    torch.save(saved, reference_path(args.output))
    print("wrote %s (%d bytes)" % (args.output, len(data)))
    if args.bundle:
        from host_tools.devtools.commands import write_bundle

        write_bundle(args.output, data, program_inputs, saved["outputs"])
    if args.etrecord:
        from host_tools.devtools.commands import write_etrecord

        write_etrecord(args.etrecord, kw["report"])
    if quant:
        from host_tools.quantize.pt2e import report_lines

        print("\n".join(report_lines(quant["report"])))
    print(summary(data, load(kernels)[1]))


def _dynamic_shapes(specs, inputs):
    """--dynamic INPUT:DIM:[MIN:]MAX, repeated -> torch.export dynamic_shapes."""
    from torch.export import Dim

    shapes = [None] * len(inputs)
    for spec in specs:
        try:
            parts = [int(x) for x in spec.split(":")]
            if len(parts) not in (3, 4):
                raise ValueError
            i, d, low, high = parts if len(parts) == 4 else parts[:2] + [None] + parts[2:]
            if not 0 <= i < len(inputs) or not 0 <= d < inputs[i].dim() or high < 2 or (low is not None and not 0 <= low <= high):
                raise ValueError
        except ValueError:
            raise CliError(
                "--dynamic %r: expected INPUT:DIM:[MIN:]MAX (an input index, its dim, a lower bound, an upper bound >= 2)" % spec
            ) from None
        shapes[i] = shapes[i] or {}
        shapes[i][d] = Dim("input%d_dim%d" % (i, d), max=high) if low is None else Dim("input%d_dim%d" % (i, d), min=low, max=high)
    return tuple(shapes)


def _keeps_state(data, kernels=None):
    """True for a program of several methods or with state (mutable buffers)."""
    from host_tools.custom_kernels import load
    from mpy_et import Program

    program = Program.load(data)
    if len(program.method_names) > 1:
        return True
    return program.load_method(program.method_names[0], kernels=load(kernels)[1]).state_bytes > 0


def _export(export, model, inputs, path, source, **kw):
    from host_tools.custom_kernels import KernelsError
    from host_tools.lowering.lower import UnsupportedOps

    try:
        return export(model, inputs, path, **kw)
    except (UnsupportedOps, KernelsError) as e:
        raise CliError("cannot export %s: %s" % (source, e)) from e


def _report(res, expected):
    import torch

    worst = 0.0
    for i, (got, want) in enumerate(zip(res.outputs, expected)):
        if got.shape != want.shape or got.dtype != want.dtype:
            print("output %d: %s %s, PyTorch %s %s" % (i, got.dtype, list(got.shape), want.dtype, list(want.shape)))
            return float("inf")
        diff = (got.double() - want.double()).abs().max().item() if got.numel() else 0.0
        worst = max(worst, diff)
        print("output %d %s: max |mpy_et - PyTorch| = %.3g" % (i, list(got.shape), diff))
        if got.numel() <= 16:
            print("  ", [round(v, 6) for v in got.flatten().tolist()])
    s = res.stats

    def fmt(key, unit=""):
        v = s.get(key)
        return "n/a" if v is None else "%d%s" % (v, unit)

    print(
        "%s: load %s, execute %s (median), arena %s, load_method heap %s (kernel imports included), execute allocated %s"
        % (
            res.target,
            fmt("load_us", " us"),
            fmt("execute_us", " us"),
            fmt("arena_bytes", " B"),
            fmt("first_load_method_heap_bytes", " B"),
            fmt("execute_heap_bytes", " B"),
        )
    )
    if s.get("execute_instructions") is not None:  # emulated board: time is an instruction count
        print(
            "%s: %d instructions per inference; heap free %s before load, %s after"
            % (res.target, s["execute_instructions"], fmt("heap_free_before_load", " B"), fmt("heap_free_after_load", " B"))
        )
    return worst if torch.isfinite(torch.tensor(worst)) else float("inf")


def cmd_run(args):
    import torch

    from host_tools import run

    if args.pte.endswith(".bpte"):  # a bundled program brings its own test cases
        from host_tools.devtools.commands import cmd_run_bundle

        return cmd_run_bundle(args)
    args.atol = 1e-5 if args.atol is None else args.atol
    ref = reference_path(args.pte)
    if args.kernels is None and os.path.exists(ref):  # the custom kernels export was given
        try:
            args.kernels = torch.load(ref).get("kernels")
        except Exception:
            args.kernels = None  # a reference that cannot be read is reported below
    _check_program(args.pte, "forward", args.kernels)
    fp32 = None
    if args.inputs:  # given inputs: compare only with --model, else just report
        from host_tools.deploy.commands import load_inputs

        inputs, expected = load_inputs(args.inputs), None
        if args.model:
            model, _ = load_model_file(args.model)
            with torch.no_grad():
                expected = model(*inputs)
            expected = list(expected) if isinstance(expected, (tuple, list)) else [expected]
    elif args.model:
        model, inputs = load_model_file(args.model)
        with torch.no_grad():
            expected = model(*inputs)
        expected = list(expected) if isinstance(expected, (tuple, list)) else [expected]
    elif os.path.exists(ref):
        try:
            saved = torch.load(ref)
            calls = "calls" in saved  # state or several methods: the recorded calls, made in order
            inputs, expected = (None, None) if calls else (saved["inputs"], saved["outputs"])
        except Exception as e:
            raise CliError("cannot read the reference %s (%s); export again or pass --model" % (ref, e)) from e
        if calls and args.port:
            raise CliError("%s keeps state or has several methods: its recorded calls run with --target, not --port" % args.pte)
        if calls:
            return _run_calls(args, saved)
        fp32 = saved.get("fp32_outputs")
        if fp32 is not None:
            print("int8 program: compared with the host integer reference (%s); fp32 PyTorch's outputs are the float gap" % ref)
    else:
        raise CliError("no inputs: pass --model MODEL.py, or export with `mpy-et export` (it writes %s)" % ref)
    if args.port:  # a board holding a flashed dist (mpy-et flash)
        from host_tools.deploy.commands import run_on_port

        res = run_on_port(args, inputs)
    else:
        res = _run(run, args.pte, inputs, args.target, repeat=args.repeat, kernels=args.kernels)
    if expected is None:
        from host_tools.deploy.commands import print_outputs

        print_outputs(res)
        _report(res, [])  # the timing and memory lines
        return 0
    worst = _report(res, expected)
    if not (args.inputs or args.model) and fp32 is not None:
        from host_tools.quantize import io as io_quant
        from mpy_et import Program

        with open(args.pte, "rb") as f:
            io = io_quant.read(Program.load(f.read())) or {"outputs": [None] * len(res.outputs)}
        real = [q[0] * (g.double() - q[1]) if q else g.double() for g, q in zip(res.outputs, io["outputs"])]
        gap = max(float((g - w.double()).abs().max()) for g, w in zip(real, fp32))
        print("max |int8 - fp32 PyTorch| = %.3g (quantization error, not checked)" % gap)
    ok = worst <= args.atol
    print("%s (tolerance %g)" % ("MATCH" if ok else "MISMATCH", args.atol))
    return 0 if ok else 1


def _run_calls(args, saved):
    from host_tools.targets import TargetError
    from host_tools.targets.calls import compare, run_calls

    try:
        results = run_calls(args.pte, saved["calls"], args.target, kernels=args.kernels)
    except TargetError as e:
        raise CliError(str(e)) from e
    worst = compare(results, saved["call_outputs"])
    ok = worst <= args.atol
    print("%s over %d calls (tolerance %g)" % ("MATCH" if ok else "MISMATCH", len(results), args.atol))
    return 0 if ok else 1


def cmd_zoo(args):
    from host_tools.analysis.macs import count_macs
    from host_tools.zoo import MODELS, build

    print("%-20s %10s %12s  %s" % ("name", "params", "MACs", "description"))
    for name, (_, text) in MODELS.items():
        model, inputs = build(name)
        params = sum(p.numel() for p in model.parameters())
        print("%-20s %10d %12d  %s" % (name, params, count_macs(model, inputs), text))
    print("export one: mpy-et export --zoo NAME -o NAME.pte")


def cmd_inspect(args):
    import json

    from host_tools.analysis.inspect_pte import inspect, plot, report
    from host_tools.custom_kernels import load

    _check_program(args.pte, args.method, args.kernels)
    with open(args.pte, "rb") as f:
        info = inspect(f.read(), args.method, load(args.kernels)[1], target=args.target)
    if args.plot:
        try:
            plot(info, args.plot)
        except RuntimeError as e:
            raise CliError(str(e)) from e
    if args.json:
        info = dict(info, memory_ids={str(k): v for k, v in info["memory_ids"].items()})
        print(json.dumps(info if args.steps else {k: v for k, v in info.items() if k not in ("steps", "tensors")}, indent=1))
    else:
        print(report(info))
        if args.plot:
            print("wrote %s" % args.plot)


def cmd_demo(args):
    import tempfile

    import torch

    from host_tools import export, run

    model, inputs = load_model_file(os.path.join(_EXAMPLES, "cnn.py"))
    with torch.no_grad():
        expected = [model(*inputs)]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "cnn.pte")
        data = _export(export, model, inputs, path, "the example CNN")
        print("exported the example CNN (%s): %d bytes" % (os.path.join(_EXAMPLES, "cnn.py"), len(data)))
        status = 0
        for target in args.targets:
            print("\n== %s ==" % target)
            res = _run(run, path, inputs, target, repeat=args.repeat)
            worst = _report(res, expected)
            ok = worst <= args.atol
            print("%s (tolerance %g)" % ("MATCH" if ok else "MISMATCH", args.atol))
            status |= 0 if ok else 1
        if not args.no_int8:
            status |= _demo_int8(model, inputs, tmp, args)
    return status


def _demo_int8(model, inputs, tmp, args):
    """The same CNN quantized to int8 (PT2E, 16 random calibration inputs):
    exact against our host integer reference, within one output quantum of
    PyTorch's PT2E graph, and execute() allocation-free."""
    import torch

    from host_tools import export, run
    from host_tools.quantize.pt2e import report_lines

    torch.manual_seed(0)
    calibration = [tuple(torch.randn_like(t) for t in inputs) for _ in range(16)]
    report = {}
    path = os.path.join(tmp, "cnn_int8.pte")
    data = export(model, inputs, path, quantize="int8", calibration=calibration, report=report)
    print("\nexported the example CNN as int8: %d bytes; %s" % (len(data), "; ".join(report_lines(report))))
    with torch.no_grad():
        want = report["reference"](*inputs)
    status = 0
    for target in args.targets:
        print("\n== %s, int8 ==" % target)
        res = _run(run, path, inputs, target, repeat=args.repeat)
        got = res.outputs[0]
        exact = torch.equal(got, want)
        with torch.no_grad():
            err = (got - model(*inputs)).abs().max().item()
        s = res.stats
        print(
            "max |int8 - fp32 PyTorch| = %.3g; %s the host integer reference; execute %s us (median), allocated %s B%s"
            % (
                err,
                "equal to" if exact else "DIFFERENT from",
                s.get("execute_us"),
                s.get("execute_heap_bytes"),
                " (heap locked)" if s.get("execute_heap_locked") else "",
            )
        )
        status |= 0 if exact else 1
    return status


def _parser():
    p = argparse.ArgumentParser(prog="mpy-et", description="ExecuTorch for MicroPython")
    p.add_argument("--version", action="version", version="mpy-et " + _version())
    p.add_argument("--debug", action="store_true", help="show tracebacks and library warnings")
    sub = p.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export", help="export a model file to .pte")
    e.add_argument("model", nargs="?", help="Python file defining `model` and `example_inputs`")
    e.add_argument("--zoo", metavar="NAME", help="export a model of the zoo instead (see `mpy-et zoo`)")
    e.add_argument("-o", "--output", default="model.pte")
    e.add_argument("--quantize", choices=["int8"], help="post-training quantization (int8: host_tools/quantize/pt2e.py)")
    e.add_argument("--calibration", help="with --quantize: a torch.save'd list of input tuples (or tensors) for calibration")
    e.add_argument(
        "--quantized-io",
        action="store_true",
        help="with --quantize int8: int8 program inputs and outputs (their scales and zero points are printed and stored in the .pte)",
    )
    e.add_argument(
        "--etrecord",
        metavar="PATH",
        help="also write an ETRecord: Inspector(etdump_path=..., etrecord=PATH) maps profile events to modules",
    )
    e.add_argument("--kernels", help="a .py file of custom operators' device kernels (KERNELS; default: the model file's `kernels`)")
    e.add_argument(
        "--delegate", choices=["ulab"], help="hand what the backend claims to it (ulab: fp32 linear/conv on CircuitPython's ulab)"
    )
    e.add_argument(
        "--dynamic",
        action="append",
        metavar="INPUT:DIM:[MIN:]MAX",
        help="a dynamic dim with bounds, e.g. 0:2:16:128 (default: the model file's `dynamic_shapes`); repeatable",
    )
    e.add_argument("--bundle", action="store_true", help="also write a bundled program (.bpte: the program and its example as a test case)")
    e.add_argument(
        "--patch",
        nargs="?",
        const="ram",
        choices=sorted(_PATCH),
        help="run the first convolution stages band by band when that saves RAM (host_tools/planning/patch.py): "
        "ram (default) counts the heap each added instruction keeps; arena: the smallest arena",
    )
    e.set_defaults(fn=cmd_export)
    r = sub.add_parser("run", help="run a .pte on a target and compare with PyTorch")
    r.add_argument("pte")
    r.add_argument("--target", default="unix", choices=TARGETS)
    r.add_argument("--model", help="model file to compute PyTorch's outputs (default: the .ref.pt written by export)")
    r.add_argument("--repeat", type=int, default=5)
    r.add_argument("--atol", type=float, help="max |mpy_et - PyTorch| (default 1e-5; a .bpte: 1e-8, with --rtol 1e-5 as ExecuTorch)")
    r.add_argument("--rtol", type=float, help="a .bpte: relative tolerance of its test cases (default 1e-5)")
    r.add_argument("--inputs", help="a torch.save'd tensor or list of tensors to run on (with --model: compared)")
    r.add_argument("--port", help="run on the board at this serial port instead (after `mpy-et flash`)")
    r.add_argument("--dest", default="", help="with --port: the board directory the dist was flashed to")
    r.add_argument("--kernels", help="a .py file of custom operators' kernels (KERNELS); default: the one export was given")
    r.set_defaults(fn=cmd_run)
    z = sub.add_parser("zoo", help="list the model zoo (host_tools/zoo) with parameters and MACs")
    z.set_defaults(fn=cmd_zoo)
    i = sub.add_parser("inspect", help="what a .pte needs on the device: arena, lower bound, constants, heap, operators")
    i.add_argument("pte")
    i.add_argument("--method", default="forward")
    i.add_argument("--json", action="store_true", help="machine-readable output")
    i.add_argument("--steps", action="store_true", help="with --json: also live bytes per step and every planned tensor")
    i.add_argument("--plot", metavar="PNG", help="draw the plan (instruction step x offset); needs matplotlib")
    i.add_argument("--kernels", help="a .py file of the custom operators' kernels (KERNELS)")
    i.add_argument(
        "--target",
        choices=("cortex-m3", "cortex-m7"),
        help="also predict the runtime's own RAM on this board (imports, registry, qstr pools, the method's objects)",
    )
    i.set_defaults(fn=cmd_inspect)
    d = sub.add_parser("demo", help="export the example CNN, run it on MicroPython, compare with PyTorch")
    d.add_argument("--targets", nargs="+", default=["unix"], choices=TARGETS)
    d.add_argument("--repeat", type=int, default=5)
    d.add_argument("--atol", type=float, default=1e-5)
    d.add_argument("--no-int8", action="store_true", help="skip the int8 export and run")
    d.set_defaults(fn=cmd_demo)
    from host_tools.deploy.commands import add_parsers

    add_parsers(sub)  # build, flash, freeze, mip
    from host_tools.devtools.commands import add_parsers as add_devtools_parsers

    add_devtools_parsers(sub)  # profile
    return p


def _quiet_library_warnings():
    """PyTorch's deprecation chatter is not for our users' terminals."""
    for category in (FutureWarning, DeprecationWarning):
        warnings.filterwarnings("ignore", category=category)
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
    warnings.filterwarnings("ignore", message=".*were assigned during export")  # nn.GRU/LSTM flat weights
    import logging

    # torchao's optional CUDA extensions ("Failed to load ...") and torch's pytree notice on import
    for name in ("torchao", "torch.utils._pytree"):
        logging.getLogger(name).setLevel(logging.ERROR)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = _parser().parse_args(argv)
    if args.debug:
        return args.fn(args) or 0
    with warnings.catch_warnings():
        _quiet_library_warnings()
        try:
            return args.fn(args) or 0
        except CliError as e:
            print("mpy-et: error: %s" % e, file=sys.stderr)
        except KeyboardInterrupt:
            print("mpy-et: interrupted", file=sys.stderr)
            return 130
        except Exception as e:  # an error we did not foresee: still one line, traceback with --debug
            print("mpy-et: error: %s: %s (run with --debug for the traceback)" % (type(e).__name__, e), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())

"""`mpy-et profile`: where a program's time goes on a target, per instruction
and per operator (host_tools/devtools/profile.py), as tables, JSON, a bar
chart and an ETDump for executorch.devtools.Inspector. Bundled programs:
`mpy-et run model.bpte` and `mpy-et export --bundle` (host_tools/devtools/bundle.py).
`mpy-et debug`: each layer's output on a target against PyTorch's
(host_tools/devtools/debug.py)."""

import json
import os


def _cli_error(msg):
    from host_tools.errors import CliError

    return CliError(msg)


def profile_inputs(args):
    """(inputs, where they came from): --inputs, --model's example_inputs,
    the .ref.pt export wrote, else seeded random tensors of the program's
    input shapes and dtypes (int8 programs spend the same time on any input)."""
    import torch

    from host_tools.cli_support import load_model_file, reference_path
    from host_tools.deploy.commands import load_inputs

    if args.inputs:
        return load_inputs(args.inputs), args.inputs
    if args.model:
        return load_model_file(args.model)[1], args.model
    ref = reference_path(args.pte)
    if os.path.exists(ref):
        return load_inputs(ref), ref
    from host_tools.lowering.ir import SCALAR_TYPES
    from mpy_et import Program

    dtypes = {code: dt for dt, code in SCALAR_TYPES.items()}
    method = Program.load(args.pte).load_method(args.method)
    g = torch.Generator().manual_seed(0)
    inputs = []
    for i in range(method.inputs_size()):
        t = method.input(i)
        dt = dtypes[t.dtype]
        shape = tuple(t.sizes)
        if dt.is_floating_point:
            inputs.append(torch.randn(shape, generator=g).to(dt))
        elif dt == torch.bool:
            inputs.append(torch.randint(0, 2, shape, generator=g).bool())
        else:
            info = torch.iinfo(dt)
            inputs.append(torch.randint(max(info.min, -128), min(info.max, 127) + 1, shape, generator=g, dtype=dt))
    return inputs, "random (seed 0)"


def cmd_profile(args):
    from host_tools import run
    from host_tools.cli_support import check_program as _check_program
    from host_tools.cli_support import run_or_fail as _run

    _check_program(args.pte, args.method)
    if args.runs < 1:
        raise _cli_error("--runs must be at least 1")
    inputs, source = profile_inputs(args)
    capture = bool(args.debug_buffer)
    if capture and not args.etdump:
        raise _cli_error("--debug-buffer goes with --etdump (its debug events point into the buffer)")
    res = _run(run, args.pte, inputs, args.target, method=args.method, repeat=1, profile=args.runs, capture=capture)
    prof = res.profile
    if args.etdump:
        with open(args.etdump, "wb") as f:
            f.write(res.etdump)
    if capture:
        with open(args.debug_buffer, "wb") as f:
            f.write(res.debug_buffer)
    if args.plot:
        from host_tools.devtools.plot import plot

        try:
            plot(prof, args.plot, "%s on %s" % (os.path.basename(args.pte), args.target))
        except RuntimeError as e:
            raise _cli_error(str(e)) from e
    if args.json:
        print(json.dumps(dict(prof.as_dict(), inputs=source, stats=res.stats), indent=1))
        return 0
    print("inputs: %s" % source)
    print(prof.table(args.top))
    s = res.stats
    print(
        "\nwithout the tracer execute() took %s %s; allocated by a traced execute(): %s B%s"
        % (
            "{:,}".format(s["execute_instructions"] if prof.unit == "instructions" else s["execute_us"]),
            prof.unit,
            "n/a" if s.get("profile_heap_bytes") is None else s["profile_heap_bytes"],
            " (heap locked)" if s.get("execute_heap_locked") else "",
        )
    )
    written = (
        (args.etdump, "ETDump (executorch.devtools.Inspector(etdump_path=...))"),
        (args.debug_buffer, "every instruction's outputs of the last run (Inspector(..., debug_buffer_path=...))"),
        (args.plot, "chart"),
    )
    for path, what in written:
        if path:
            print("wrote %s: %s" % (path, what))
    return 0


def cmd_debug(args):
    from host_tools.cli_support import load_model_file
    from host_tools.devtools.debug import debug
    from host_tools.targets import TargetError
    from mpy_et import MpyEtError

    if (args.model is None) == (args.zoo is None):
        raise _cli_error("debug takes a model file or --zoo NAME (one of them)")
    if args.zoo is not None:
        from host_tools.zoo import build

        try:
            model, inputs = build(args.zoo)
        except KeyError as e:
            raise _cli_error(e.args[0]) from e
    else:
        model, inputs = load_model_file(args.model)
    kw = {}
    if args.quantize:
        from host_tools.quantize.pt2e import cli_options

        opts = cli_options(args.quantize, args.calibration, inputs, _cli_error)
        kw = {"quantize": opts["quantize"], "calibration": opts["calibration"]}
    elif args.calibration:
        raise _cli_error("--calibration needs --quantize int8")
    try:
        report = debug(model, inputs, args.target, **kw)
    except (MpyEtError, TargetError) as e:
        raise _cli_error(str(e)) from e
    print(report.table())
    return 0


def add_parsers(sub):
    from host_tools.targets import TARGETS

    p = sub.add_parser("profile", help="time per instruction and per operator on a target (event tracer), ETDump, chart")
    p.add_argument("pte")
    p.add_argument("--target", default="unix", choices=TARGETS)
    p.add_argument("--method", default="forward")
    p.add_argument("--runs", type=int, default=3, help="profiled executions (medians are shown)")
    p.add_argument("--top", type=int, help="only the N operators and instructions taking most time")
    p.add_argument("--model", help="model file whose example_inputs to run (default: the .ref.pt export wrote, else random)")
    p.add_argument("--inputs", help="a torch.save'd tensor or list of tensors to run on")
    p.add_argument("--etdump", metavar="ETDP", help="write the runs as ExecuTorch ETDump")
    p.add_argument("--debug-buffer", metavar="BIN", help="with --etdump: also capture every instruction's outputs into BIN")
    p.add_argument("--plot", metavar="PNG", help="bar charts per operator and per instruction; needs matplotlib")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(fn=cmd_profile)
    d = sub.add_parser("debug", help="each layer's output on a target against PyTorch's: where the numbers go wrong")
    d.add_argument("model", nargs="?", help="Python file defining `model` and `example_inputs`")
    d.add_argument("--zoo", metavar="NAME", help="a model of the zoo instead")
    d.add_argument("--target", default="unix", choices=TARGETS)
    d.add_argument("--quantize", choices=["int8"], help="debug the int8 program: layers against the host integer reference")
    d.add_argument("--calibration", help="with --quantize: a torch.save'd list of input tuples")
    d.set_defaults(fn=cmd_debug)


def write_bundle(pte_path, data, inputs, outputs):
    """`mpy-et export --bundle`: <output>.bpte beside the .pte, its example as the one test case."""
    from host_tools.devtools.bundle import write

    path = (pte_path[:-4] if pte_path.endswith(".pte") else pte_path) + ".bpte"
    blob = write(data, [(list(inputs), list(outputs))])
    with open(path, "wb") as f:
        f.write(blob)
    print("wrote %s (%d bytes: the program and 1 test case)" % (path, len(blob)))
    return path


def write_etrecord(path, report):
    """`mpy-et export --etrecord PATH` (host_tools/devtools/etrecord.py)."""
    from host_tools.devtools.etrecord import write

    try:
        write(report, path)
    except ImportError as e:
        raise _cli_error("--etrecord needs ExecuTorch's devtools: pip install executorch (%s)" % e) from e
    print("wrote %s: ETRecord (executorch.devtools.Inspector(etdump_path=..., etrecord=%r))" % (path, path))


def cmd_run_bundle(args):
    """`mpy-et run model.bpte`: every test case on the target; exit 1 on any mismatch."""
    from host_tools.cli_support import existing as _existing
    from host_tools.devtools.bundle import run_bundle
    from host_tools.targets import TargetError
    from mpy_et import MpyEtError
    from mpy_et.bundled import ATOL, RTOL

    if args.port:
        raise _cli_error("a .bpte runs on the emulated and host targets (--target), not --port")
    _existing(args.pte, "bundled program")
    rtol = RTOL if args.rtol is None else args.rtol
    atol = ATOL if args.atol is None else args.atol
    try:
        results = run_bundle(args.pte, args.target, rtol, atol)
    except MpyEtError as e:
        raise _cli_error("%s is not a bundled program mpy_et can run: %s" % (args.pte, e)) from e
    except TargetError as e:
        raise _cli_error(str(e)) from e
    for r in results:
        worst = "n/a (count, dtype or shape differs)" if r["worst"] is None else "%.3g" % r["worst"]
        print("%s test case %d: %s (max |got - expected| = %s)" % (r["method"], r["case"], "pass" if r["ok"] else "FAIL", worst))
    passed = sum(r["ok"] for r in results)
    print("%d/%d test cases pass on %s (rtol %g, atol %g)" % (passed, len(results), args.target, rtol, atol))
    return 0 if results and passed == len(results) else 1

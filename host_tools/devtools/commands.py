"""`mpy-et profile`: where a program's time goes on a target, per instruction
and per operator (host_tools/devtools/profile.py), as tables, JSON, a bar
chart and an ETDump for executorch.devtools.Inspector."""

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

    from host_tools.cli import load_model_file, reference_path
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
    from host_tools.cli import _check_program, _run

    _check_program(args.pte, args.method)
    if args.runs < 1:
        raise _cli_error("--runs must be at least 1")
    inputs, source = profile_inputs(args)
    res = _run(run, args.pte, inputs, args.target, method=args.method, repeat=1, profile=args.runs)
    prof = res.profile
    if args.etdump:
        with open(args.etdump, "wb") as f:
            f.write(res.etdump)
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
    for path, what in ((args.etdump, "ETDump (executorch.devtools.Inspector(etdump_path=...))"), (args.plot, "chart")):
        if path:
            print("wrote %s: %s" % (path, what))
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
    p.add_argument("--plot", metavar="PNG", help="bar charts per operator and per instruction; needs matplotlib")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(fn=cmd_profile)

"""The `mpy-et` command: export, run, demo."""

import argparse
import os
import runpy
import sys

_EXAMPLES = os.path.join(os.path.dirname(__file__), "examples")


def load_model_file(path):
    """Run a model file; return (model, example_inputs) it defines."""
    ns = runpy.run_path(path)
    missing = [name for name in ("model", "example_inputs") if name not in ns]
    if missing:
        raise SystemExit("%s must define %s (an nn.Module and a tuple of example tensors)" % (path, " and ".join(missing)))
    inputs = ns["example_inputs"]
    return ns["model"], tuple(inputs) if isinstance(inputs, (list, tuple)) else (inputs,)


def reference_path(pte_path):
    """Where export keeps the example inputs and PyTorch's outputs for `run`."""
    return pte_path + ".ref.pt"


def cmd_export(args):
    import torch

    from host_tools import export
    from host_tools.inspect_pte import summary

    model, inputs = load_model_file(args.model)
    data = export(model, inputs, args.output)
    with torch.no_grad():
        expected = model(*inputs)
    expected = list(expected) if isinstance(expected, (tuple, list)) else [expected]
    torch.save({"inputs": list(inputs), "outputs": expected}, reference_path(args.output))
    print("wrote %s (%d bytes)" % (args.output, len(data)))
    print(summary(data))


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
        "%s: load %s, execute %s (median), arena %s, load_method heap %s, execute allocated %s"
        % (
            res.target,
            fmt("load_us", " us"),
            fmt("execute_us", " us"),
            fmt("arena_bytes", " B"),
            fmt("load_method_heap_bytes", " B"),
            fmt("execute_heap_bytes", " B"),
        )
    )
    return worst if torch.isfinite(torch.tensor(worst)) else float("inf")


def cmd_run(args):
    import torch

    from host_tools import run

    ref = reference_path(args.pte)
    if args.model:
        model, inputs = load_model_file(args.model)
        with torch.no_grad():
            expected = model(*inputs)
        expected = list(expected) if isinstance(expected, (tuple, list)) else [expected]
    elif os.path.exists(ref):
        saved = torch.load(ref)
        inputs, expected = saved["inputs"], saved["outputs"]
    else:
        raise SystemExit("no inputs: pass --model MODEL.py, or export with `mpy-et export` (it writes %s)" % ref)
    res = run(args.pte, inputs, args.target, repeat=args.repeat)
    worst = _report(res, expected)
    ok = worst <= args.atol
    print("%s (tolerance %g)" % ("MATCH" if ok else "MISMATCH", args.atol))
    return 0 if ok else 1


def cmd_demo(args):
    import tempfile

    import torch

    from host_tools import export, run

    model, inputs = load_model_file(os.path.join(_EXAMPLES, "cnn.py"))
    with torch.no_grad():
        expected = [model(*inputs)]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "cnn.pte")
        data = export(model, inputs, path)
        print("exported the example CNN (%s): %d bytes" % (os.path.join(_EXAMPLES, "cnn.py"), len(data)))
        status = 0
        for target in args.targets:
            print("\n== %s ==" % target)
            res = run(path, inputs, target, repeat=args.repeat)
            worst = _report(res, expected)
            ok = worst <= args.atol
            print("%s (tolerance %g)" % ("MATCH" if ok else "MISMATCH", args.atol))
            status |= 0 if ok else 1
    return status


def main(argv=None):
    p = argparse.ArgumentParser(prog="mpy-et", description="ExecuTorch for MicroPython")
    sub = p.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export", help="export a model file to .pte")
    e.add_argument("model", help="Python file defining `model` and `example_inputs`")
    e.add_argument("-o", "--output", default="model.pte")
    e.set_defaults(fn=cmd_export)
    r = sub.add_parser("run", help="run a .pte on a target and compare with PyTorch")
    r.add_argument("pte")
    r.add_argument("--target", default="unix", choices=("cpython", "unix", "wasm"))
    r.add_argument("--model", help="model file to compute PyTorch's outputs (default: the .ref.pt written by export)")
    r.add_argument("--repeat", type=int, default=5)
    r.add_argument("--atol", type=float, default=1e-5)
    r.set_defaults(fn=cmd_run)
    d = sub.add_parser("demo", help="export the example CNN, run it on MicroPython, compare with PyTorch")
    d.add_argument("--targets", nargs="+", default=["unix"], choices=("cpython", "unix", "wasm"))
    d.add_argument("--repeat", type=int, default=5)
    d.add_argument("--atol", type=float, default=1e-5)
    d.set_defaults(fn=cmd_demo)
    args = p.parse_args(argv)
    return args.fn(args) or 0


if __name__ == "__main__":
    sys.exit(main())

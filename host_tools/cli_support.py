"""What the mpy-et subcommand modules share (host_tools/cli.py,
host_tools/devtools/commands.py): model files, the reference side file,
checking a program on the host and running one with target errors as
CliError. Below both, so neither imports the other for it."""

import os
import sys

from host_tools.errors import CliError


def existing(path, what):
    if not os.path.exists(path):
        raise CliError("%s %s: no such file" % (what, path))
    if os.path.isdir(path):
        raise CliError("%s %s: is a directory, expected a file" % (what, path))
    return path


def load_model_file(path):
    """Run a model file; return (model, example_inputs) it defines."""
    return load_model_namespace(path)[:2]


def load_model_namespace(path):
    """Run a model file; return (model, example_inputs, namespace): it may
    also define `methods` (export's methods=) and `calls` (see run_calls)."""
    existing(path, "model file")
    try:
        ns = _run_model_file(path)
    except Exception as e:
        raise CliError("model file %s failed to run: %s: %s" % (path, type(e).__name__, e)) from e
    missing = [name for name in ("model", "example_inputs") if name not in ns]
    if missing:
        raise CliError("%s must define %s (an nn.Module and a tuple of example tensors)" % (path, " and ".join(missing)))
    inputs = ns["example_inputs"]
    return ns["model"], tuple(inputs) if isinstance(inputs, (list, tuple)) else (inputs,), ns


def _run_model_file(path):
    """The model file's globals, run as a module registered in sys.modules
    (torch.export's tracing of torch.cond looks branch functions up by module)."""
    import importlib.util
    import re

    name = "_mpy_et_model_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return vars(module)


def reference_path(pte_path):
    """Where export keeps the example inputs and PyTorch's outputs for `run`."""
    return pte_path + ".ref.pt"


def check_program(path, method, kernels=None):
    """Load the program on the host first: a bad file is reported here, clearly,
    rather than as a failure inside the target."""
    from host_tools.custom_kernels import KernelsError, load
    from mpy_et import MpyEtError, Program

    existing(path, "program")
    try:
        Program.load(path).load_method(method, kernels=load(kernels)[1])
    except KernelsError as e:
        raise CliError(str(e)) from e
    except MpyEtError as e:
        raise CliError("%s is not a program mpy_et can run: %s" % (path, e)) from e


def run_or_fail(run, pte, inputs, target, **kw):
    from host_tools.targets import TargetError

    try:
        return run(pte, inputs, target, **kw)
    except TargetError as e:
        raise CliError(str(e)) from e

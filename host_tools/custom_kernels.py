"""Custom operators' device kernels, as the host handles them: a Python file
(or module) defining KERNELS = {"namespace::name.overload": kernel} that
follows the kernel convention (ARCHITECTURE.md). Export adds its operators to
the ones the runtime supports and loads the program with it; host_tools.run
and run_calls stage the file next to the program on the target; `mpy-et
build --kernels` puts it in a dist's registry.
"""

import importlib.util
import os
import types


class KernelsError(ValueError):
    """A kernels file that cannot be used: missing, failing or without KERNELS."""


def load(kernels):
    """(path of the module's file or None, {operator: kernel function}) for a
    path of a .py file, a module, or a dict (returned as it is)."""
    if kernels is None:
        return None, None
    if isinstance(kernels, dict):
        return None, kernels
    if isinstance(kernels, types.ModuleType):
        module, path = kernels, getattr(kernels, "__file__", None)
    else:
        path = os.fspath(kernels)
        if not os.path.isfile(path) or not path.endswith(".py"):
            raise KernelsError("kernels %s: not a .py file" % path)
        spec = importlib.util.spec_from_file_location(module_name(path), path)
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as e:
            raise KernelsError("kernels %s failed to import: %s: %s" % (path, type(e).__name__, e)) from e
    table = getattr(module, "KERNELS", None)
    if not isinstance(table, dict) or not table:
        raise KernelsError("kernels %s must define KERNELS = {'namespace::name.overload': kernel function, ...}" % (path or module))
    for op, fn in table.items():
        if not isinstance(op, str) or "::" not in op or not callable(fn):
            raise KernelsError("kernels %s: KERNELS[%r] must map 'namespace::name.overload' to a function" % (path or module, op))
    return path, table


def module_name(path):
    """The name the kernels file is imported under on the device."""
    return os.path.splitext(os.path.basename(path))[0]


def registry_entries(path, table):
    """{operator: (module, function)} for a dist's generated registry."""
    return {op: (module_name(path), fn.__name__) for op, fn in table.items()}

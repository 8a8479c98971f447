"""mpy_et host tools (CPython): export models to .pte, run them on targets.

`export`, `run` and `RunResult` are imported on first use, so that tools which
do not need torch (the CLI's argument parsing, `--version`) start quickly and
can set up warning filters before torch is imported.
"""

import importlib
import sys
import types

__all__ = ["RunResult", "export", "inspect", "run", "run_calls"]
_LAZY = {
    "export": "host_tools.export",
    "run": "host_tools.targets.run",
    "run_calls": "host_tools.targets.calls",
    "RunResult": "host_tools.targets.run",
    "inspect": "host_tools.analysis.inspect_pte",
}


class _Package(types.ModuleType):
    """Keeps `host_tools.export` the function when the submodule host_tools.export is
    imported (`from host_tools.export import ...` would otherwise rebind the name
    to the module, and `from host_tools import export` would then get a module)."""

    def __setattr__(self, name, value):
        if name in _LAZY and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError("module 'host_tools' has no attribute %r" % name)
    value = getattr(importlib.import_module(_LAZY[name]), name)
    # Importing the submodule bound its module object to this name: rebind the function.
    globals()[name] = value
    return value

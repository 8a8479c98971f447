"""mpy_et host tools (CPython): export models to .pte, run them on targets."""

from host_tools.export import export
from host_tools.run import RunResult, run

__all__ = ["RunResult", "export", "run"]

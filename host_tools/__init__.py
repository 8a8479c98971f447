"""mpy_et host tools (CPython): export models to .pte, run them on targets."""

from host_tools.export import export

__all__ = ["export"]

"""Scripts that run on a target (device code: they import mpy_et, never host_tools)."""

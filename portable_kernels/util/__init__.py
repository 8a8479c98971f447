"""Helpers shared by the kernels: load-time checks and geometry, loops,
scratch, conversions (and the generated @micropython.native copies, *_native.py)."""

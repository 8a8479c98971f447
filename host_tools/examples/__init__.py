"""Example models shipped with mpy_et (used by `mpy-et demo` and the tests).

A model file defines `model` (a torch.nn.Module) and `example_inputs` (a tuple
of tensors). `mpy-et export FILE.py` reads those two names.
"""

"""mpy_et: run ExecuTorch .pte programs on MicroPython, CircuitPython and CPython.

program = mpy_et.Program.load("model.pte")
method = program.load_method("forward")
method.set_input(0, samples)
method.execute()
print(method.output(0).tolist())
"""

from mpy_et.errors import MpyEtError
from mpy_et.program import Program
from mpy_et.tensor import Tensor

__version__ = "0.1.0"
__all__ = ["MpyEtError", "Program", "Tensor"]

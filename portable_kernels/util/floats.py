"""Float constants shared by the math kernels (one place, feature-detected
once at import)."""

import math

from mpy_et import dtypes

INF = math.inf
NAN = math.nan

# Whether this port's floats are doubles (CPython, unix/wasm MicroPython) or
# single precision (most boards; CircuitPython's 30-bit floats).
DOUBLE_FLOATS = 1.0 + 1e-10 != 1.0

# Largest x whose exp(x) is finite in the compute type (math.exp raises past
# the port's own limit): float32's 88.72283 (0x42B17217), float64's 709.78.
_F32_EXP_MAX = 88.72283172607422
EXP_MAX = {dtypes.FLOAT: _F32_EXP_MAX, dtypes.DOUBLE: 709.782712893384 if DOUBLE_FLOATS else _F32_EXP_MAX}


def math_fn(name, what):
    """math.<name>, or a load-time NotSupported error on a port without it."""
    fn = getattr(math, name, None)
    if fn is None:
        from portable_kernels.util import checks

        checks.not_supported("%s needs math.%s, which this port's math module lacks" % (what, name))
    return fn

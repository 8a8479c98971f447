"""aten::sign.out: -1, 0 or 1 in the input's type (0 for NaN, as torch). The int32
step allocates nothing."""

from mpy_et import dtypes
from portable_kernels.util import checks


def sign_out(x, out):
    r = checks.unary(x, out, "sign")
    one = 1.0 if r in dtypes.FLOATING else 1
    return _sign, (x.data, out.data, x.numel, one, -one, one - one)


def _sign(ctx):
    x, o, n, one, minus, zero = ctx
    for i in range(n):
        v = x[i]
        if v > 0:
            o[i] = one
        elif v < 0:
            o[i] = minus
        else:
            o[i] = zero  # zero or NaN: torch's sign(NaN) is 0

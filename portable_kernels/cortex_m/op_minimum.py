"""cortex_m::minimum.out and (op_maximum.py) cortex_m::maximum.out: torch.minimum /
torch.maximum with broadcasting, through dim-order strides. Integer dtypes
allocate nothing in the step (marked); floats box on most ports."""

from mpy_et import dim_orders, dtypes, noalloc
from portable_kernels.cortex_m import binary
from portable_kernels.util import checks

_FLOATS = (dtypes.FLOAT, dtypes.DOUBLE)


def minimum_out(a, b, out):
    return prepare(a, b, out, "cortex_m::minimum", False)


def prepare(a, b, out, what, bigger):
    for t, name in ((a, "self"), (b, "other"), (out, "out")):
        checks.is_tensor(t, what + " " + name)
    checks.same_dtype(a, b, out)
    geo = binary.plan(a, b, out, what)
    if out.numel == 0:
        return None
    step = _extreme_float if a.dtype in _FLOATS else _extreme
    return step, (a.data, b.data, out.data, geo, bigger)


def _extreme(ctx):
    ad, bd, od, geo, bigger = ctx
    sizes, sa, sb, so = geo
    for i in range(sizes[0]):
        for j in range(sizes[1]):
            for k in range(sizes[2]):
                pa = i * sa[0] + j * sa[1] + k * sa[2]
                pb = i * sb[0] + j * sb[1] + k * sb[2]
                po = i * so[0] + j * so[1] + k * so[2]
                for m in range(sizes[3]):
                    x = ad[pa + m * sa[3]]
                    y = bd[pb + m * sb[3]]
                    od[po + m * so[3]] = (x if x > y else y) if bigger else (x if x < y else y)


def _extreme_float(ctx):
    # torch propagates NaN: x != x picks x
    ad, bd, od, geo, bigger = ctx
    sizes, sa, sb, so = geo
    for i in range(sizes[0]):
        for j in range(sizes[1]):
            for k in range(sizes[2]):
                pa = i * sa[0] + j * sa[1] + k * sa[2]
                pb = i * sb[0] + j * sb[1] + k * sb[2]
                po = i * so[0] + j * so[1] + k * so[2]
                for m in range(sizes[3]):
                    x = ad[pa + m * sa[3]]
                    y = bd[pb + m * sb[3]]
                    if x != x or (y == y and ((x > y) if bigger else (x < y))):
                        od[po + m * so[3]] = x
                    else:
                        od[po + m * so[3]] = y


noalloc.mark(_extreme)


dim_orders.mark(minimum_out)

"""Elementwise binary cortex_m:: ops: broadcasting over up to 4 dims through
each tensor's dim-order strides (a broadcast dim has stride 0)."""

from portable_kernels.cortex_m import layout
from portable_kernels.util import checks


def plan(a, b, out, what):
    """(sizes, a strides, b strides, out strides), all padded to 4 dims."""
    na, nb = len(a.sizes), len(b.sizes)
    nd = na if na > nb else nb
    if nd > 4:
        checks.fail("%s: %d dims; at most 4" % (what, nd))
    sa = [1] * (4 - na) + list(a.sizes)
    sb = [1] * (4 - nb) + list(b.sizes)
    ta = [0] * (4 - na) + layout.strides(a)
    tb = [0] * (4 - nb) + layout.strides(b)
    sizes = []
    for i in range(4):
        if sa[i] != sb[i] and sa[i] != 1 and sb[i] != 1:
            checks.fail("%s: shapes %s and %s do not broadcast" % (what, checks.shape_str(a), checks.shape_str(b)))
        sizes.append(sa[i] if sb[i] == 1 else sb[i])
        if sa[i] == 1:
            ta[i] = 0
        if sb[i] == 1:
            tb[i] = 0
    checks.out_shape(out, tuple(sizes[4 - nd :]), what)
    to = [0] * (4 - nd) + layout.strides(out)
    return tuple(sizes), tuple(ta), tuple(tb), tuple(to)

"""Tensor layouts (dim orders) as the cortex_m:: kernels see them.

A tensor's `sizes` are logical (NCHW for a 4-D activation); its bytes are in
`dim_order` (mpy_et/tensor.py: None when they are in the contiguous order).
These kernels index every tensor through element strides derived from its
dim order, so any order ExecuTorch emits works: channels-last [0, 2, 3, 1]
is what its Cortex-M passes produce.
"""

from portable_kernels.util import checks


def strides(t):
    """Element stride of each logical dim of t, from its dim order."""
    sizes = t.sizes
    order = t.dim_order
    nd = len(sizes)
    if order is None:
        order = range(nd)
    st = [0] * nd
    s = 1
    for k in range(nd - 1, -1, -1):
        d = order[k]
        st[d] = s
        s *= sizes[d]
    return st


def nchw(t, what, nhwc=False):
    """(sizes, strides) of a 4-D tensor as (N, C, H, W); `nhwc`: its logical sizes are N, H, W, C."""
    checks.dim_count(t, 4, what)
    st = strides(t)
    sz = t.sizes
    if nhwc:
        return (sz[0], sz[3], sz[1], sz[2]), (st[0], st[3], st[1], st[2])
    return tuple(sz), tuple(st)


def is_channels_last(t):
    """ExecuTorch's is_channels_last (passes_utils): 4-D and C == 1, H == W == 1 or order [0, 2, ...]."""
    if len(t.sizes) != 4:
        return False
    n, c, h, w = t.sizes
    if c == 1 or (h == 1 and w == 1):
        return True
    return t.dim_order is not None and t.dim_order[0] == 0 and t.dim_order[1] == 2


def same_order(a, b, what):
    """a and b must hold their elements in the same physical order (elementwise byte maps)."""
    if strides(a) != strides(b):
        checks.not_supported("%s: input dim order %s and output dim order %s differ" % (what, a.dim_order, b.dim_order))


def contiguous(t, what):
    """t (a constant such as weights) must be in the contiguous order."""
    if t is not None and t.dim_order is not None:
        checks.not_supported("%s: dim_order %s is not supported; only the contiguous order" % (what, list(t.dim_order)))

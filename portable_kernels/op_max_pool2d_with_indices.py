"""aten::max_pool2d_with_indices.out: max over windows (padding is -inf) and
the flat index of the max within its input plane (h * W + w), as torch.

NaN wins, as in torch. Window bounds are precomputed per output row and
column, so the step has no padding tests. Float only; indices int64 (or
int32). Allocation in the step: boxed floats only.
"""

import math

from mpy_et import dim_orders, dtypes
from portable_kernels.util import any_order, checks, window


def max_pool2d_with_indices_out(x, kernel_size, stride, padding, dilation, ceil_mode, out, indices):
    what = "max_pool2d_with_indices"
    planes, h, w, oh, ow, k, s, p, d = window.pool2d(x, out, kernel_size, stride, padding, dilation, ceil_mode, what)
    checks.is_tensor(indices, what + " indices")
    checks.dtype_in(indices, (dtypes.LONG, dtypes.INT), what + " indices")
    checks.out_shape(indices, out.sizes, what + " indices")
    if x.dim_order is not None or out.dim_order is not None or indices.dim_order is not None:
        return any_order.max_pool2d(x, out, indices, k, s, p, d, oh, ow)
    hs, he = window.starts_ends(oh, h, k[0], s[0], p[0], d[0])
    ws, we = window.starts_ends(ow, w, k[1], s[1], p[1], d[1])
    hn = [(e - a + d[0] - 1) // d[0] for a, e in zip(hs, he)]  # window rows and columns
    wn = [(e - a + d[1] - 1) // d[1] for a, e in zip(ws, we)]
    hs = [a * w for a in hs]  # rows as flat offsets within the plane
    return _max_pool, (x.data, out.data, indices.data, planes, h * w, oh, ow, hs, hn, ws, wn, d[0] * w, d[1], -math.inf)


def _max_pool(ctx):
    """Also adaptive_max_pool2d's step. Counted loops (range() with a
    variable step would allocate a range object per window row)."""
    x, o, ix, planes, hw, oh, ow, hs, hn, ws, wn, rstep, dw, ninf = ctx
    oi = 0
    xb = 0
    for _ in range(planes):
        for i in range(oh):
            rb = xb + hs[i]
            nr = hn[i]
            for j in range(ow):
                r = rb + ws[j]
                nc = wn[j]
                m = ninf
                mi = r
                for _ in range(nr):
                    q = r
                    for _ in range(nc):
                        v = x[q]
                        if v > m or v != v:
                            m = v
                            mi = q
                        q += dw
                    r += rstep
                o[oi] = m
                ix[oi] = mi - xb
                oi += 1
        xb += hw


dim_orders.mark(max_pool2d_with_indices_out)

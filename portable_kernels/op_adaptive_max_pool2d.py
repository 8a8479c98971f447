"""aten::adaptive_max_pool2d.out: max over torch's adaptive windows
[floor(i * H / oh), ceil((i + 1) * H / oh)) with the flat index of the max
in its plane. Float only; indices int64 or int32. The step is
max_pool2d_with_indices's. Allocation in the step: boxed floats only."""

import math

from mpy_et import dtypes
from portable_kernels.op_adaptive_avg_pool2d import _windows
from portable_kernels.op_max_pool2d_with_indices import _max_pool
from portable_kernels.util import checks, loops


def adaptive_max_pool2d_out(x, output_size, out, indices):
    what = "adaptive_max_pool2d"
    checks.is_tensor(x, what + " input")
    checks.dtype_in(x, dtypes.FLOATING, what + " input")
    checks.is_tensor(out, what + " out")
    checks.same_dtype(x, out)
    checks.is_tensor(indices, what + " indices")
    checks.dtype_in(indices, (dtypes.LONG, dtypes.INT), what + " indices")
    if len(x.sizes) not in (3, 4):
        checks.fail("%s: input must be 3-D (C, H, W) or 4-D (N, C, H, W), got %s" % (what, checks.shape_str(x)))
    oh, ow = checks.int_list(output_size, 2, what + " output_size", 1)
    h, w = x.sizes[-2], x.sizes[-1]
    if h == 0 or w == 0:
        checks.fail("%s: input %s has an empty spatial dim" % (what, checks.shape_str(x)))
    shape = tuple(x.sizes[:-2]) + (oh, ow)
    checks.out_shape(out, shape, what)
    checks.out_shape(indices, shape, what + " indices")
    planes = loops.numel(x.sizes[:-2])
    if planes == 0:
        return None
    hs, _, hn = _windows(h, oh)  # window starts and sizes
    ws, _, wn = _windows(w, ow)
    ctx = (x.data, out.data, indices.data, planes, h * w, oh, ow, [a * w for a in hs], hn, ws, wn, w, 1, -math.inf)
    return _max_pool, ctx

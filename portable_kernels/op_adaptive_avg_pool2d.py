"""aten::_adaptive_avg_pool2d.out: (N, C, H, W) or (C, H, W) averaged over
torch's adaptive windows [floor(i * H / oh), ceil((i + 1) * H / oh)).
Float only; the step is avg_pool2d's (precomputed window bounds and
divisors). Allocation in the step: boxed floats only."""

from mpy_et import dtypes
from portable_kernels.op_avg_pool2d import _avg_pool
from portable_kernels.util import checks, loops

_FLOATS = (dtypes.FLOAT, dtypes.DOUBLE)


def adaptive_avg_pool2d_out(x, output_size, out):
    what = "_adaptive_avg_pool2d"
    checks.is_tensor(x, what + " input")
    checks.dtype_in(x, _FLOATS, what + " input")
    checks.is_tensor(out, what + " out")
    checks.same_dtype(x, out)
    if len(x.sizes) not in (3, 4):
        checks.fail("%s: input must be 3-D (C, H, W) or 4-D (N, C, H, W), got %s" % (what, checks.shape_str(x)))
    oh, ow = checks.int_list(output_size, 2, what + " output_size", 1)
    h, w = x.sizes[-2], x.sizes[-1]
    if h == 0 or w == 0:
        checks.fail("%s: input %s has an empty spatial dim" % (what, checks.shape_str(x)))
    checks.out_shape(out, tuple(x.sizes[:-2]) + (oh, ow), what)
    planes = loops.numel(x.sizes[:-2])
    if planes == 0:
        return None
    hs, _, fh = _windows(h, oh)
    ws, we, fw = _windows(w, ow)
    return _avg_pool, (x.data, out.data, planes, h * w, oh, ow, [a * w for a in hs], fh, fh, ws, we, fw, w)


def _windows(n_in, n_out):
    starts = [(i * n_in) // n_out for i in range(n_out)]
    ends = [-((-(i + 1) * n_in) // n_out) for i in range(n_out)]
    return starts, ends, [e - a for a, e in zip(starts, ends)]

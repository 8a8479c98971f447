"""aten::stack.out: tensors of one shape joined along a new dim. Any dtype
(all of out's dtype). Runs as cat (op_cat.py) over size-1-dim views of the
inputs that share their storage; the step does not allocate."""

from mpy_et.tensor import Tensor
from portable_kernels.op_cat import cat_out
from portable_kernels.util import checks


def stack_out(tensors, dim, out):
    what = "stack"
    if not isinstance(tensors, (list, tuple)) or not tensors:
        checks.fail("%s: expected a non-empty list of tensors, got %r" % (what, tensors))
    checks.is_tensor(out, what + " out")
    ref = tensors[0]
    for i, t in enumerate(tensors):
        checks.is_tensor(t, "%s tensors[%d]" % (what, i))
        if t.dtype != out.dtype:
            checks.fail("%s: tensors[%d] is %s but out is %s" % (what, i, checks.shape_str(t), checks.shape_str(out)), checks.INVALID_TYPE)
        if tuple(t.sizes) != tuple(ref.sizes):
            checks.fail("%s: all tensors must have one shape: %s vs %s" % (what, checks.shape_str(ref), checks.shape_str(t)))
    d = checks.norm_dim(dim, len(ref.sizes) + 1, what)
    shape = tuple(ref.sizes[:d]) + (1,) + tuple(ref.sizes[d:])
    checks.out_shape(out, shape[:d] + (len(tensors),) + shape[d + 1 :], what)
    views = []
    for t in tensors:
        v = Tensor(t.dtype, shape)
        if t.buf is not None:
            v.bind(t.buf, t.offset)
        views.append(v)
    return cat_out(views, d, out)

"""aten::slice_copy.Tensor_out: x[..., start:end:step, ...] along dim. Any
dtype; torch's clamping of start and end. The step copies raw units (see
util/strided.py) and does not allocate."""

from portable_kernels.util import checks, strided


def slice_copy_tensor_out(x, dim, start, end, step, out):
    what = "slice_copy"
    checks.is_tensor(x, what + " self")
    checks.is_tensor(out, what + " out")
    if not x.sizes:
        checks.fail("%s: cannot slice a 0-dim tensor" % what)
    d = checks.norm_dim(dim, len(x.sizes), what)
    if not isinstance(step, int) or step < 1:
        checks.fail("%s: step must be a positive int, got %r" % (what, step))
    n = x.sizes[d]
    a = clamp_index(0 if start is None else start, n, what + " start")
    e = clamp_index(n if end is None else end, n, what + " end")
    length = (e - a + step - 1) // step if e > a else 0
    sizes = list(x.sizes)
    sizes[d] = length
    checks.out_shape(out, sizes, what)
    st = strided.view_strides(x)
    strides = list(st)
    strides[d] = st[d] * step
    return strided.gather(x, out, sizes, strides, a * st[d])


def clamp_index(v, n, what):
    """torch's slice bound: negative counts from the end, then clamped to [0, n]."""
    if not isinstance(v, int) or isinstance(v, bool):
        checks.fail("%s must be an int, got %r" % (what, v))
    if v < 0:
        v += n
    return 0 if v < 0 else (n if v > n else v)

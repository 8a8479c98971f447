"""aten::repeat.out: x tiled `repeats` times along each dim (new leading
dims for extra repeats). Any dtype; a strided gather over the shape
(r0, s0, r1, s1, ...) with stride 0 on the repeat dims (util/strided.py), which
does not allocate."""

from portable_kernels.util import checks, strided


def repeat_out(x, repeats, out):
    what = "repeat"
    checks.is_tensor(x, what + " self")
    checks.is_tensor(out, what + " out")
    checks.same_dtype(x, out)
    nd = len(x.sizes)
    if not isinstance(repeats, (tuple, list)) or len(repeats) < nd:
        checks.fail("%s: repeats %r must have at least as many entries as self %s has dims" % (what, repeats, checks.shape_str(x)))
    reps = checks.int_list(repeats, len(repeats), what + " repeats", 0)
    k = len(reps) - nd
    sizes = (1,) * k + tuple(x.sizes)
    st = (0,) * k + tuple(strided.view_strides(x))
    checks.out_shape(out, [r * s for r, s in zip(reps, sizes)], what)
    shape, strides = [], []
    for r, s, t in zip(reps, sizes, st):
        shape += [r, s]
        strides += [0, t]
    return strided.gather(x, out, shape, strides, 0)

"""cortex_m::pad.out: constant padding of an int8 tensor (rank <= 4).

pre_pad / post_pad hold 4 entries (outermost first); for a channels-last
input (ExecuTorch's is_channels_last) they are in NHWC order, as its Cortex-M
pass writes them. The step copies bytes through both tensors' strides and
allocates nothing.
"""

from mpy_et import dim_orders, noalloc
from portable_kernels.cortex_m import layout
from portable_kernels.util import checks, loops

_NHWC_INV_ORDER = (0, 3, 1, 2)


def pad_out(x, pre_pad, post_pad, pad_value, out):
    what = "cortex_m::pad"
    checks.is_tensor(x, what + " input")
    checks.is_tensor(out, what + " out")
    checks.same_dtype(x, out)
    rank = len(x.sizes)
    if not 1 <= rank <= 4:
        checks.fail("%s: input rank %d; 1 to 4 dims" % (what, rank))
    pre = checks.int_list(pre_pad, 4, what + " pre_pad", 0)
    post = checks.int_list(post_pad, 4, what + " post_pad", 0)
    if layout.is_channels_last(x):
        pre = [pre[_NHWC_INV_ORDER[i]] for i in range(4)]
        post = [post[_NHWC_INV_ORDER[i]] for i in range(4)]
    if not isinstance(pad_value, int):
        checks.fail("%s: pad_value %r must be an int" % (what, pad_value))
    off = 4 - rank
    sizes = [1] * off + list(x.sizes)
    osz = [sizes[i] + pre[i] + post[i] for i in range(4)]
    checks.out_shape(out, tuple(osz[off:]), what)
    xs = [0] * off + layout.strides(x)
    os_ = [0] * off + layout.strides(out)
    if out.numel == 0:
        return None
    if osz == sizes and xs == os_:  # nothing to pad (ExecuTorch's flow writes such pads): one byte copy
        return loops.copy_all(x, out)
    return _pad, (x.data, out.data, tuple(sizes), tuple(osz), tuple(pre), tuple(xs), tuple(os_), pad_value)


def _pad(ctx):
    xd, od, sz, osz, pre, xs, os_, value = ctx
    for a in range(osz[0]):
        ia = a - pre[0]
        ina = 0 <= ia < sz[0]
        for b in range(osz[1]):
            ib = b - pre[1]
            inb = ina and 0 <= ib < sz[1]
            for c in range(osz[2]):
                ic = c - pre[2]
                inc = inb and 0 <= ic < sz[2]
                ob = a * os_[0] + b * os_[1] + c * os_[2]
                xb = ia * xs[0] + ib * xs[1] + ic * xs[2]
                for d in range(osz[3]):
                    id_ = d - pre[3]
                    if inc and 0 <= id_ < sz[3]:
                        od[ob + d * os_[3]] = xd[xb + id_ * xs[3]]
                    else:
                        od[ob + d * os_[3]] = value


noalloc.mark(_pad)


dim_orders.mark(pad_out)

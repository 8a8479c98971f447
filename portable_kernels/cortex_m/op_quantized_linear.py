"""cortex_m::quantized_linear.out: int8 fully connected (arm_fully_connected_s8).

With kernel_sum (the MVE form): acc = x . w + filter_offset * sum(x) + kernel_sum[o];
without: acc = (x + input_offset) . (w + filter_offset) + bias[o]. Then one
per-tensor CMSIS-NN requantization (multipliers[0], shifts[0]), +
output_offset, clamped. Weights int8 [O, K] read in place. The step
allocates nothing while accumulators stay within +-2**30.
"""

from mpy_et import dim_orders, dtypes, noalloc
from mpy_et.tensor import addressable
from portable_kernels.cortex_m import cmsis, conv, layout
from portable_kernels.quantized import requant as q_requant
from portable_kernels.util import checks


def quantized_linear_out(x, weights, bias, kernel_sum, input_offset, filter_offset, output_offset, mults, shifts, act_max, act_min, out):
    what = "cortex_m::quantized_linear"
    conv.check_q(x, what + " input")
    conv.check_q(weights, what + " weights")
    conv.check_q(out, what + " out")
    for t, name in ((x, "input"), (weights, "weights"), (out, "out")):
        layout.contiguous(t, what + " " + name)
    checks.dim_count(weights, 2, what + " weights")
    o, k = weights.sizes
    if not x.sizes or x.sizes[-1] != k:
        checks.fail("%s: input %s does not end in %d features" % (what, checks.shape_str(x), k))
    rows = x.numel // k if k else 0
    checks.out_shape(out, tuple(x.sizes[:-1]) + (o,), what)
    if not (isinstance(mults, (list, tuple)) and isinstance(shifts, (list, tuple)) and mults and shifts):
        checks.fail("%s: requantize_multipliers and requantize_shifts must be non-empty int lists" % what)
    rq = cmsis.params(mults[0], shifts[0], what)
    lo, hi = conv.act_range(act_min, act_max, what)
    for v, name in ((input_offset, "input_offset"), (filter_offset, "filter_offset"), (output_offset, "output_offset")):
        if not isinstance(v, int):
            checks.fail("%s: %s %r must be an int" % (what, name, v))
    if kernel_sum is not None:
        checks.is_tensor(kernel_sum, what + " kernel_sum")
        checks.dtype_in(kernel_sum, (dtypes.INT,), what + " kernel_sum")
        if kernel_sum.numel != o:
            checks.fail("%s: kernel_sum %s for %d outputs" % (what, checks.shape_str(kernel_sum), o))
        cd, xoff, woff, fsum = kernel_sum.data, 0, 0, filter_offset
    else:
        cd, xoff, woff, fsum = conv.bias_data(bias, o, what), input_offset, filter_offset, 0
    if out.numel == 0:
        return None
    ctx = (x.data, weights.data, cd, out.data, rows, o, k, xoff, woff, fsum, rq, output_offset, lo, hi)
    bound = k * 255 * 256 + (conv._largest(cd, o) if cd is not None else 0)
    if q_requant.use_viper and not woff and not fsum and bound < 0x7FFFFFFF and addressable(x, weights, out):
        # a 1x1 convolution of `rows` pixels of k channels: the convolutions' viper path
        consts = kernel_sum if kernel_sum is not None else bias
        geo = (rows, k, 1, 1, k, 1, 0, 0, o, 1, 1, o, 1, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, k, o, k, 0, 0, 1)
        step = conv.viper_step(
            x,
            weights,
            consts,
            out,
            cmsis.channel_params([mults[0]] * o, [shifts[0]] * o, o, what),
            geo + (xoff, output_offset, lo, hi),
            ctx,
            bound,
        )
        return _viper_or_reference, step[1]
    return _linear, ctx


def _viper_or_reference(ctx):
    fn, a, ref = ctx
    if fn(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10]):
        _linear(ref)


def _linear(ctx):
    xd, wd, cd, od, rows, o, k, xoff, woff, fsum, rq, ooff, lo, hi = ctx
    for r in range(rows):
        xb = r * k
        sx = 0
        if fsum:
            for i in range(k):
                sx += xd[xb + i]
            sx *= fsum
        for j in range(o):
            acc = sx + (cd[j] if cd is not None else 0)
            wb = j * k
            for i in range(k):
                acc += (xd[xb + i] + xoff) * (wd[wb + i] + woff)
            v = cmsis.requantize(acc, rq) + ooff
            od[r * o + j] = lo if v < lo else hi if v > hi else v


noalloc.mark(_linear, _viper_or_reference)


dim_orders.mark(quantized_linear_out)

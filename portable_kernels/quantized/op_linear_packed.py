"""mpy_et_quant::linear_packed.out: int8 fully connected layer, x [..., K] and
a packed weight [O, K rounded up to 4] (host_tools/quantize/pack.py),
per-channel requantization: op_conv2d's kernels as a 1x1 convolution over a
1x1 image with K channels per row. On Thumb-2 Arm (armv7-m and up), where K
is a multiple of 4, one assembler step does the whole layer
(native/q_linear_thumb.py)."""

from portable_kernels.quantized import op_conv2d_packed as q_conv2d
from portable_kernels.quantized import requant as q_requant
from portable_kernels.quantized.requant import check_int8, zero_point
from portable_kernels.util import checks
from portable_kernels.util.emitters import THUMB2


def linear_packed_out(x, weight, channels, x_zp, out_zp, out_min, out_max, out):
    what = "mpy_et_quant::linear_packed"
    for t, name in ((x, "input"), (out, "out")):
        check_int8(t, "%s %s" % (what, name))
    checks.is_tensor(weight, what + " weight")
    if len(weight.sizes) != 2 or not x.sizes:
        checks.fail(
            "%s: input %s and weight %s do not fit (weight must be [O, K rounded up to 4])"
            % (what, checks.shape_str(x), checks.shape_str(weight))
        )
    k, o = x.sizes[-1], weight.sizes[0]
    q_conv2d.check_packed(weight, o, k, what)
    rows = x.numel // k if k else 0
    checks.out_shape(out, tuple(x.sizes[:-1]) + (o,), what)
    if THUMB2 and q_requant.use_viper and k and not k & 3:
        q_requant.channel_table(channels, o, what)
        zero_point(x_zp, what + " x_zero_point")  # folded into the channels' C
        zo = zero_point(out_zp, what + " out_zero_point")
        lo, hi = zero_point(out_min, what + " out_min"), zero_point(out_max, what + " out_max")
        if lo > hi:
            checks.fail("%s: out_min %d > out_max %d" % (what, lo, hi))
        if out.numel == 0:
            return None
        from portable_kernels.native import q_linear_thumb

        return q_linear_thumb.prepare(x, weight, channels, rows, k, o, zo, lo, hi, out)
    geom = (rows, 1, o, k, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1)
    return q_conv2d.make(x, weight, channels, geom, x_zp, out_zp, out_min, out_max, out, what)

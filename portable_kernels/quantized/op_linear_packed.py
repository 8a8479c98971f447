"""mpy_et_quant::linear_packed.out: int8 fully connected layer, x [..., K] and
a packed weight [O, K rounded up to 4] (host_tools/quantize/pack.py),
per-channel requantization: op_conv2d's kernels as a 1x1 convolution over a
1x1 image with K channels per row."""

from portable_kernels.quantized import op_conv2d_packed as q_conv2d
from portable_kernels.quantized.requant import check_int8
from portable_kernels.util import checks


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
    geom = (rows, 1, o, k, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1)
    return q_conv2d.make(x, weight, channels, geom, x_zp, out_zp, out_min, out_max, out, what)

"""mpy_et_quant::linear.out: int8 fully connected layer, x [..., K] and
weight [O, K], per-channel requantization: op_conv2d's kernels as a 1x1
convolution over a 1x1 image with K channels per row."""

from portable_kernels.quantized import op_conv2d as q_conv2d
from portable_kernels.quantized.requant import check_int8
from portable_kernels.util import checks


def linear_out(x, weight, bias, requant_t, x_zp, out_zp, out_min, out_max, out):
    what = "mpy_et_quant::linear"
    for t, name in ((x, "input"), (weight, "weight"), (out, "out")):
        check_int8(t, "%s %s" % (what, name))
    if len(weight.sizes) != 2 or not x.sizes or x.sizes[-1] != weight.sizes[1]:
        checks.fail("%s: input %s and weight %s do not fit (weight must be [O, K])" % (what, checks.shape_str(x), checks.shape_str(weight)))
    k, o = weight.sizes[1], weight.sizes[0]
    rows = x.numel // k if k else 0
    checks.out_shape(out, tuple(x.sizes[:-1]) + (o,), what)
    geom = (rows, 1, o, k, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1)
    return q_conv2d._make(x, weight, bias, requant_t, geom, x_zp, out_zp, out_min, out_max, out, what)

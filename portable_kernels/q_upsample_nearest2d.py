"""mpy_et_quant::upsample_nearest2d.out: aten::upsample_nearest2d.vec_out's
kernel on int8 (elements move as raw bytes: same scale, exact, no allocation).
Its own operator because torch has no int8 upsample for the host reference."""

from portable_kernels import op_upsample_nearest2d
from portable_kernels.q_requant import check_int8


def upsample_nearest2d_out(x, scale_factors, out):
    check_int8(x, "mpy_et_quant::upsample_nearest2d input")
    return op_upsample_nearest2d.upsample_nearest2d_vec_out(x, None, scale_factors, out)

"""mpy_et_quant::upsample_nearest2d.out: aten::upsample_nearest2d.vec_out's
kernel on int8 (elements move as raw bytes: same scale, exact, no allocation).
Its own operator because torch has no int8 upsample for the host reference.
Where the port has a native emitter the step is q_upsample_viper's, on Arm
q_upsample_thumb's (same bytes, source indices from the same torch rule)."""

from portable_kernels import op_upsample_nearest2d
from portable_kernels.quantized import requant as q_requant
from portable_kernels.quantized.requant import check_int8
from portable_kernels.util import upsample
from portable_kernels.util.emitters import HAS_THUMB


def upsample_nearest2d_out(x, scale_factors, out):
    check_int8(x, "mpy_et_quant::upsample_nearest2d input")
    if not q_requant.use_viper:
        return op_upsample_nearest2d.upsample_nearest2d_vec_out(x, None, scale_factors, out)
    what = "upsample_nearest2d"
    size, scales = upsample.vec_scales(None, scale_factors, what)
    planes, h, w, oh, ow, sh, sw = upsample.check(x, out, size, scales, what, False)
    if out.numel == 0:
        return None
    rows, cols = upsample.nearest_index(h, oh, sh), upsample.nearest_index(w, ow, sw)
    if HAS_THUMB:
        from portable_kernels.native import q_upsample_thumb

        return q_upsample_thumb.prepare(x, out, planes, h, w, oh, ow, rows, cols)
    from portable_kernels.native import q_upsample_viper

    return q_upsample_viper.prepare(x, out, planes, h, w, oh, ow, rows, cols)

"""aten::upsample_nearest2d.out / .vec_out: each output pixel copies its
nearest source pixel (torch's index rule, upsample.nearest_index). Any
dtype: elements move as raw units (util/strided.py), so the step does not
allocate. Where the port has a native emitter, 4-byte elements (float32,
int32) are copied as words by q_upsample_viper's word step (a float32
element read through the bytecode step's int32 view can box as a big
int: on a 32-bit board ~1,100 instructions and a heap block per element)."""

from mpy_et import dtypes, noalloc
from mpy_et.tensor import addressable
from portable_kernels.util import strided, upsample
from portable_kernels.util.emitters import HAS_NATIVE


def upsample_nearest2d_out(x, output_size, scales_h, scales_w, out):
    return _nearest(x, output_size, (scales_h, scales_w), out)


def upsample_nearest2d_vec_out(x, output_size, scale_factors, out):
    size, scales = upsample.vec_scales(output_size, scale_factors, "upsample_nearest2d")
    return _nearest(x, size, scales, out)


def _nearest(x, output_size, scales, out):
    planes, h, w, oh, ow, sh, sw = upsample.check(x, out, output_size, scales, "upsample_nearest2d", False)
    if planes == 0:
        return None
    if HAS_NATIVE and dtypes.itemsize(x.dtype) == 4 and not (x.offset | out.offset) & 3 and addressable(x, out):
        from portable_kernels.native import q_upsample_viper

        rows, cols = upsample.nearest_index(h, oh, sh), upsample.nearest_index(w, ow, sw)
        return q_upsample_viper.prepare(x, out, planes, h, w, oh, ow, rows, cols, 4)
    units = strided.units_of(x.dtype)
    rows = [r * w * units for r in upsample.nearest_index(h, oh, sh)]
    cols = [c * units + u for c in upsample.nearest_index(w, ow, sw) for u in range(units)]
    return _step, (strided.raw_view(x)[0], strided.raw_view(out)[0], planes, h * w * units, rows, cols)


def _step(ctx):
    x, o, planes, plane, rows, cols = ctx
    oi = 0
    base = 0
    for _ in range(planes):
        for r in rows:
            r += base
            for c in cols:
                o[oi] = x[r + c]
                oi += 1
        base += plane


noalloc.mark(_step)

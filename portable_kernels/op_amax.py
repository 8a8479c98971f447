"""aten::amax.out: the largest element over dims (a list; [] is every
dim), keepdim as torch; NaN wins, as in torch. Allocation: none for bool
and int32 inputs, and for float32 where the port has a native emitter
(f32_extreme_viper: on the bits; on Thumb-2 boards its assembler copy,
f32_extreme_thumb); boxed floats for other float inputs."""

from mpy_et import dtypes, noalloc
from mpy_et.tensor import addressable
from portable_kernels.util import checks
from portable_kernels.util.emitters import HAS_NATIVE, THUMB2
from portable_kernels.util.reduce_extreme import extreme, extreme_walk

if HAS_NATIVE:
    from portable_kernels.native.f32_extreme_viper import extreme as viper_extreme


def amax_out(x, dim, keepdim, out):
    checks.is_tensor(x, "amax self")
    checks.is_tensor(out, "amax out")
    if HAS_NATIVE and x.dtype == dtypes.FLOAT and addressable(x, out):  # on the bits, in viper
        walk = extreme_walk(x, dim, keepdim, out, "amax")
        if walk is not None:
            if THUMB2:
                from portable_kernels.native import f32_extreme_thumb

                if f32_extreme_thumb.usable(walk):
                    return _amax_thumb, (x.data, out.data, walk, f32_extreme_thumb.extreme)
            return _amax_bits, (x.data, out.data, walk)
    ko, ro = extreme(x, dim, keepdim, out, "amax")
    return _amax, (x.data, out.data, ko, ro[1:])  # ro[0] is 0: the first element starts the walk


def _amax_bits(ctx):
    viper_extreme(ctx[0], ctx[1], ctx[2], 1)


def _amax_thumb(ctx):
    ctx[3](ctx[0], ctx[1], ctx[2], 1)


def _amax(ctx):
    # `not v <= m` is also true for a NaN v; the NaN test runs only when m changes
    x, o, ko, rest = ctx
    k = 0
    for b in ko:
        m = x[b]
        if m == m:
            for r in rest:
                v = x[b + r]
                if not v <= m:
                    m = v
                    if v != v:
                        break
        o[k] = m
        k += 1


noalloc.mark(_amax_thumb, _amax_bits)

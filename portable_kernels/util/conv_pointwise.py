"""1x1 convolution, stride 1, no padding (aten::convolution.out): a matrix
product per group. The input is read in tiles of pixels: a tile of every
input channel of the group is copied once into a list of Python floats,
then each output channel of the group sums over it (float_loops.accumulate), so
an input element is boxed once per tile rather than once per output
channel (MobileNet's pointwise layers read it 32-256 times). Tiles hold
about _TILE_ELEMENTS elements whatever the channel count, so the lists stay
small on a microcontroller. Allocation in the step: boxed floats only.
"""

from mpy_et.port import const
from portable_kernels.util import scratch
from portable_kernels.util.emitters import HAS_NATIVE
from portable_kernels.util.float_loops import accumulate, release

_TILE_ELEMENTS = const(1024)


def prepare(x, weight, bdata, out, n, oc, groups, cpg, hw):
    """(step, ctx) for the pointwise convolution of the data view x (n,
    groups * cpg, hw) by weight into out (bdata: the bias view, or None)."""
    tile = max(8, min(hw, _TILE_ELEMENTS // cpg))
    return _pointwise, (
        x,
        weight,
        bdata,
        out,
        scratch.floats(cpg * tile, "pointwise input"),
        scratch.floats(tile, "pointwise acc"),
        n,
        oc,
        groups,
        oc // groups,
        cpg,
        hw,
        tile,
    )


def _pointwise(ctx):
    x, wt, bias, o, xt, acc, n, oc_n, groups, opg, cpg, hw, tile = ctx
    for b in range(n):
        for g in range(groups):
            xb = (b * groups + g) * cpg * hw
            t0 = 0
            while t0 < hw:  # not range(0, hw, tile): a variable step allocates
                tn = hw - t0 if hw - t0 < tile else tile
                k = 0
                for c in range(cpg):  # the tile of each input channel, back to back
                    src = xb + c * hw + t0
                    for q in range(src, src + tn):
                        xt[k] = x[q]
                        k += 1
                for oc in range(g * opg, g * opg + opg):
                    bv = bias[oc] if bias is not None else 0.0
                    for j in range(tn):
                        acc[j] = bv
                    accumulate(wt, oc * cpg, xt, 0, cpg, tn, acc)
                    oi = (b * oc_n + oc) * hw + t0
                    for j in range(tn):
                        o[oi] = acc[j]
                        oi += 1
                t0 += tn
    release(xt)
    release(acc)


if HAS_NATIVE:  # the same functions compiled by the native emitter (host_tools/codegen/native_variants.py)
    from portable_kernels.util.conv_native import _pointwise  # noqa: E402, F811

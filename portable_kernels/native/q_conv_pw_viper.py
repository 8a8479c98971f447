"""Pointwise int8 convolution on armv7e-m (native/q_conv_viper.py imports it only where
emitters.DSP): 1x1, stride 1, no padding, input channels a multiple of 4 up to 512, 4 or
more output channels. No gather: the plane's pixels in runs, read by q_dot_dsp.pwx straight
from the input planes into q_dot_dsp.dotsx's lanes, then dotsx and the Thumb-2
requantization (q_requant_thumb.rows), output channels cn at a time. A module of its own:
viper code is copied to RAM at import, and ports without DSP never import this one.
Bit-identical to host_tools/quantize/ref.py; does not allocate.
"""

from array import array

import micropython

from mpy_et import noalloc
from mpy_et.port import const
from portable_kernels.util import scratch

# Thumb-2 only (dotsx, pwx): the module goes only to those dists
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")
# the most bytes a run of pixels takes as dotsx's lanes
_PW_BYTES = const(2048)
_ACC_WORDS = const(512)  # q_conv_viper's


def prepare(x, out, params, wt, geom, tail, kn, kp, rq, fill):
    """(step, ctx) of a checked pointwise convolution (q_conv_viper.prepare chose it): runs of
    up to _PW_BYTES // (2 * kp) pixels (even, at most _ACC_WORDS // 4)."""
    from portable_kernels.native.q_dot_dsp import dotsx, pwx

    opg = geom[2]
    plane = geom[14] * geom[15]
    run = min(plane, _PW_BYTES // (2 * kp), _ACC_WORDS // 4) & ~1
    cn = opg
    if run * opg > _ACC_WORDS:
        cn = max(2, (_ACC_WORDS // run) & ~1)
    g = array("i", [x.offset, out.offset] + list(geom) + tail + [kn, kp, 1, 0, cn, 1, run])
    ctx = (
        x.buf,
        out.buf,
        params,
        g,
        scratch.rows("xcol", run * kp >> 1),
        scratch.rows("sx", run),
        wt,
        scratch.rows("acc", run * cn),
        scratch.rows("qc ctl", 13),
        dotsx,
        rq,
        scratch.rows("qc rq", 16),
        pwx,
        scratch.rows("qp ctl", 5),
        fill,  # q_conv_viper._fill: passed in, not imported (q_conv_viper imports this module)
    )
    return _step_pw, ctx


def _step_pw(ctx):
    g = ctx[3]
    ctx[14](g, ctx[8], ctx[11], None)
    _pw_rows(ctx[0], ctx[1], ctx[2], g, ctx[4], ctx[5], ctx[6], ctx[7], ctx[8], ctx[9], ctx[10], ctx[11], ctx[12], ctx[13])


@micropython.viper
def _pw_rows(xobj, oobj, pobj, gobj, xcolobj, sxobj, wtobj, accobj, ctlobj, dots, rq, rqobj, pwx, pcobj):
    ctl = ptr32(ctlobj)  # noqa: F821
    g = ptr32(gobj)  # noqa: F821
    rc = ptr32(rqobj)  # noqa: F821
    pc = ptr32(pcobj)  # noqa: F821
    n = g[2]
    groups = g[3]
    opg = g[4]
    cpg = g[5]
    kp = g[23]
    cn = g[26]
    run = g[28]
    plane = g[16] * g[17]
    table = int(ptr8(pobj))  # noqa: F821
    pc[1] = plane
    pc[2] = cpg * plane
    ctl[1] = kp
    for b in range(n):
        for gi in range(groups):
            xa = int(ptr8(xobj)) + g[0] + (b * groups + gi) * cpg * plane  # noqa: F821
            p = 0
            while p < plane:
                m = run
                if m > plane - p:
                    m = plane - p
                pc[0] = m
                pc[4] = xa + p
                pwx(pcobj, xcolobj, sxobj)
                ctl[0] = m
                rc[1] = m
                j = 0
                while j < opg:
                    c = cn
                    if c > opg - j:
                        c = opg - j
                    oc = gi * opg + j
                    ctl[2] = c
                    ctl[3] = oc * kp
                    ctl[9] = c >> 1
                    ctl[10] = c & 1
                    dots(xcolobj, wtobj, accobj, ctlobj)
                    rc[0] = 4 * c
                    rc[4] = c
                    rc[5] = table + oc * 32
                    rc[3] = g[1] + (b * groups * opg + oc) * plane + p
                    rq(accobj, sxobj, oobj, rqobj)
                    j += c
                p += m


noalloc.mark(_step_pw)

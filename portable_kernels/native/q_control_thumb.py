"""The control block of the two-input int8 elementwise assembler steps
(q_add_thumb, q_mul_thumb). Apart from native/thumb_steps.py, which float
programs import too (for its copies), so that they do not import the int8
requantization."""

from array import array

from portable_kernels.native.thumb_steps import at
from portable_kernels.quantized.requant import SPLIT_FROM


def control(a, b, out, m, s, lim, zo, lo, hi):
    """The control block of a two-input int8 elementwise step (q_add_thumb,
    q_mul_thumb; the layout host_tools/codegen/blocks.py's requant_thumb
    reads): [0] a [4] b [8] out [12] out's end [16] L [20] -L [24] M
    [28] rounding half [32] shift [36] zo [40] lo [44] hi [48] split
    [52] 0x7FFF. The caller appends its own words from [56]."""
    split = 1 if s >= SPLIT_FROM else 0
    sh, half = (s - 15, 1 << (s - 16)) if split else (s, 1 << (s - 1))
    o = at(out)
    return array("i", [at(a), at(b), o, o + out.numel, lim, -lim, m, half, sh, zo, lo, hi, split, 0x7FFF])

"""Host integer reference of mpy_et_quant::bmm (the device kernel is
portable_kernels/quantized/op_bmm.py): exact, with the 32-bit-safety checks of
host_tools/quant_ref.requantize on every intermediate."""

import torch

from host_tools.quantize import ref as quant_ref


def bmm(a, b, a_zp, b_zp, m, s, lim, out_zp, out_min, out_max):
    """int8 [B, M, K] @ int8 [B, K, N] -> int8 [B, M, N], per-tensor zero points, one (M, s, L)."""
    acc = torch.bmm(a.to(torch.int64) - a_zp, b.to(torch.int64) - b_zp)
    # every partial sum is bounded by K * 255 * 255 as the device kernel checks at load
    quant_ref.check_range(torch.tensor([a.shape[2] * 255 * 255]), quant_ref.SMALL, "bmm accumulator bound")
    return quant_ref.requantize(acc, m, s, lim, out_zp, out_min, out_max, "bmm").to(torch.int8)

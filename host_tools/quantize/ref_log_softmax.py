"""Host integer reference of mpy_et_quant::log_softmax (the device kernel is
portable_kernels/quantized/op_log_softmax.py) and its tables.

A classifier's log-probabilities in int8, integers only. Per row: m = max(x),
d = m - x (0..255), S = sum of T[d] with T the softmax table
(round(exp(-x_scale * d) * 2**K), T[0] = 2**K: quant_ref.softmax_table).
The real value is -x_scale * d - ln(S / 2**K); over the output scale, with F
fraction bits:
    A[d]  = round(x_scale * d / out_scale * 2**F)              (256 entries)
    ln(S / 2**K) = (e - K) ln 2 + ln(1 + f),   S = 2**e (1 + f), 0 <= f < 1
    L     = (e - K) * LN2 + LN[i] + ((LN[i + 1] - LN[i]) * r >> 8)
with LN[i] = round(ln(1 + i / 256) / out_scale * 2**F) (257 entries), i the 8
bits of f after the leading one and r the next 8 (linear interpolation:
error below 2e-6 of a nat), LN2 = round(ln 2 / out_scale * 2**F). Then
    out = clamp(out_zp + ((2**F >> 1) - A[d] - L) >> F, -128, 127).
F (at most 16) keeps every sum below 2**29: small ints on 32-bit ports.
"""

import math

import torch

from host_tools.quantize import ref as quant_ref

MAX_F = 16


def tables(x_scale, n, out_scale):
    """(exp table int32[256], log table int32[514] = A + LN + [LN2], F) or None."""
    exp_t = quant_ref.softmax_table(x_scale, n)
    e_max = max(1, n).bit_length()  # S <= n * 2**K: e - K <= log2(n)
    for f in range(MAX_F, -1, -1):
        a = [round(x_scale * d / out_scale * 2**f) for d in range(256)]
        ln = [round(math.log(1 + i / 256) / out_scale * 2**f) for i in range(257)]
        ln2 = round(math.log(2) / out_scale * 2**f)
        if a[255] + e_max * ln2 + ln[256] + 2**f < 2**29:
            return exp_t, torch.tensor(a + ln + [ln2], dtype=torch.int32), f
    return None


def log_softmax(x, exp_table, log_table, dim, frac_bits, out_zp):
    """mpy_et_quant::log_softmax along dim: int8 -> int8, exact."""
    xs = x.to(torch.int64)
    t = exp_table.to(torch.int64)
    lt = log_table.to(torch.int64)
    k = int(t[0]).bit_length() - 1
    d = xs.amax(dim, keepdim=True) - xs
    s = t[d].sum(dim, keepdim=True)
    quant_ref.check_range(s, 2**29 + 1, "log_softmax sum")
    e = torch.tensor([int(v).bit_length() - 1 for v in s.flatten().tolist()], dtype=torch.int64).reshape(s.shape)
    i = (s >> (e - 8)) - 256
    r = torch.where(e >= 16, s >> (e - 16).clamp(min=0), s << (16 - e).clamp(min=0)) & 255
    lo, hi = lt[256 + i], lt[256 + i + 1]
    big_l = (e - k) * lt[513] + lo + (((hi - lo) * r) >> 8)
    y = (1 << frac_bits >> 1) - lt[d] - big_l
    quant_ref.check_range(y, 2**30, "log_softmax value")
    return (out_zp + (y >> frac_bits)).clamp(-128, 127).to(torch.int8)

"""Host integer reference of mpy_et_quant::layer_norm (the device kernel is
portable_kernels/quantized/op_layer_norm.py) and its parameters.

Layer norm over the last dim (n <= 128) of int8 x, in integers only. Per row,
with d = x - zx, S1 = sum d, S2 = sum d*d, D = n*S2 - S1*S1 and
t_c = n*d_c - S1 (sum of t_c^2 = n*D, so |t_c| <= sqrt(n*D)):

    (x_c - mean) / sqrt(var + eps) = t_c / sqrt(D + E),   E = eps * n^2 / sx^2

j is the largest in 0..15 with D*4^j + E_j < 2^30 (E_j = round(E * 4^j), a
table made here); r = floor(sqrt(D*4^j + E_j)) (>= 2^14 unless D = 0, when every
t_c is 0); U_c = floor(t_c * 2^j * 2^F / r) (F = 11 fraction bits;
|t_c * 2^j| <= sqrt(n * D * 4^j) < sqrt(n) * 2^15, so the dividend stays
below sqrt(128) * 2^26 < 2^30 and D + E_0 < 2^29 as D <= n^2 * 127.5^2 and
E_0 < 2^28). The affine part
gamma_c * u + beta_c over the output scale so is one requantization per
channel: acc_c = sign(gamma_c) * U_c + B_c with B_c = round(beta_c * 2^F /
|gamma_c|), real multiplier |gamma_c| / (so * 2^F). Every intermediate
stays below 2^30 (small ints on 32-bit ports): checked here on every call.
Relative error of the normalization about 2^-14 (r) and 2^-11 of a standard
deviation (U): far below one output quantum, so results differ from PyTorch's
float layer norm only where its value lies at a rounding boundary.
"""

import math

import torch

from host_tools.quantize import ref as quant_ref

F = 11  # fraction bits of the normalized value U
MAX_N = 128  # n * S2 and S1^2 stay below 2^30
STEPS = 16  # E_j for j = 0..15 (4^15 = 2^30)
TOP = (1 << 30) - 1  # the largest small int on 32-bit ports


def params(gamma, beta, eps, n, x_scale, out_scale):
    """(requant int32 [n, 3], offsets int32 [n, 2] (sign, B), eps_table int32 [16])
    or None when these numbers leave the integer ranges (the op stays float)."""
    if n > MAX_N or n < 1:
        return None
    e = eps * n * n / (x_scale * x_scale)
    if e >= 2**28:
        return None
    table = torch.tensor([min(round(e * 4**j), TOP) for j in range(STEPS)], dtype=torch.int32)
    gamma = torch.ones(n, dtype=torch.float64) if gamma is None else gamma.to(torch.float64)
    beta = torch.zeros(n, dtype=torch.float64) if beta is None else beta.to(torch.float64)
    reals, offsets = [], []
    for c in range(n):
        g = float(gamma[c])
        if g == 0.0 or not math.isfinite(g):
            return None
        b = round(float(beta[c]) * 2**F / abs(g))
        if abs(b) >= 2**29:
            return None
        reals.append(abs(g) / (out_scale * 2**F))
        offsets.append([1 if g > 0 else -1, b])
    rq = quant_ref.requant_table(reals)
    if any(int(m) == 0 for m in rq[:, 0]):
        return None  # a multiplier below the requantization's range
    return rq, torch.tensor(offsets, dtype=torch.int32), table


def isqrt(v):
    """floor(sqrt(v)) of a non-negative int64 tensor, exact."""
    r = torch.sqrt(v.to(torch.float64)).floor().to(torch.int64)
    r = torch.where(r * r > v, r - 1, r)
    return torch.where((r + 1) * (r + 1) <= v, r + 1, r)


def layer_norm(x, requant, offsets, eps_table, x_zp, out_zp):
    """mpy_et_quant::layer_norm: int8 [..., n] -> int8 [..., n], exact."""
    n = x.shape[-1]
    d = x.to(torch.int64).reshape(-1, n) - x_zp
    s1 = d.sum(1, keepdim=True)
    s2 = (d * d).sum(1, keepdim=True)
    quant_ref.check_range(n * s2, 2**30, "layer_norm n * S2")
    quant_ref.check_range(s1 * s1, 2**30, "layer_norm S1^2")
    big_d = n * s2 - s1 * s1
    et = eps_table.to(torch.int64)
    j = torch.zeros_like(big_d)
    for k in range(1, STEPS):  # the device's loop: grow j while the next step fits
        fits = (j == k - 1) & (big_d <= (TOP - et[k]) >> (2 * k))
        j = torch.where(fits, torch.full_like(j, k), j)
    dz = (big_d << (2 * j)) + et[j]
    quant_ref.check_range(dz, 2**30, "layer_norm D * 4^j + E_j")
    r = isqrt(dz).clamp(min=1)
    t = n * d - s1
    v = (t << j) << F
    quant_ref.check_range(v, 2**30, "layer_norm t * 2^j * 2^F")
    u = torch.div(v, r, rounding_mode="floor")
    off = offsets.to(torch.int64)
    acc = off[:, 0] * u + off[:, 1]
    quant_ref.check_range(acc, 2**30, "layer_norm accumulator")
    rq = requant.to(torch.int64)
    out = quant_ref.requantize(acc, rq[:, 0], rq[:, 1], rq[:, 2], out_zp, -128, 127, "layer_norm")
    return out.reshape(x.shape).to(torch.int8)

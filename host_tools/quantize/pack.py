"""The layout int8 convolutions and linear layers are read in, written at export.

The fused graph's mpy_et_quant conv2d / conv1d / linear take int8 weights, an
int32 bias and a requantization table (host_tools/quantize/ref.py runs them).
A .pte names their `_packed` forms instead (host_tools/quantize/ops.py), whose
two constants are what every kernel reads in place, so no port copies or
re-lays weights into RAM at load:

weight: uint8 [O, kp], kp = K rounded up to a multiple of 4 (K = input
    channels per group x kernel taps): bytes w + 128. Within each group
    (opg channels, from byte g * opg * kp on) the channels go in pairs: for
    every 4 patch positions, 4 bytes of the pair's first channel then 4 of its
    second (what native/q_dot_thumb.dots and native/q_dots_viper.dots read);
    an odd last channel has a row of its own. Positions >= K hold 0. Byte of
    channel j (in its group) at patch position k:
        start(j) + (k >> 2) * stride(j) + (k & 3), where
        start(j) = j * kp + (j & 1) * (4 - kp), stride(j) = 8   if j < opg & ~1
        start(j) = j * kp,                      stride(j) = 4   otherwise
channels: int32 [O, 8], per output channel (C + 2**29, M, s, L, C, -L, s', R):
    C = bias - (128 + x_zero_point) * sum(w), so that with xb = x + 128
    (padding x_zero_point + 128)
        bias + sum((x - x_zero_point) * w) = C + sum(xb * wb) - 128 * sum(xb)
    (check_viper_conv bounds every term); M, s, L requantize as
    ref.requant_params. The first four are what the viper and Python steps
    read (non-negative: 32-bit loads zero-extend on 64-bit ports); the last
    four are the Arm requantization's operands as it uses them (s' = s, or
    s - 15 from s = 22 on, where the accumulator is split; R = 2**(s' - 1)
    the rounding), so it reads them from flash as they are.
"""

import torch

from host_tools.quantize import ref as quant_ref

OFFSET = 1 << 29  # C is stored non-negative: 32-bit loads zero-extend on 64-bit ports
PACKED = {"conv2d": "conv2d_packed", "conv1d": "conv1d_packed", "linear": "linear_packed"}


def padded(k):
    """kp: a patch of k bytes rounded up to a multiple of 4."""
    return (k + 3) & ~3


def pack_weight(weight, groups=1):
    """uint8 [O, kp] of an int8 weight [O, in/groups, *kernel] (module docstring).

    Args:
        weight: int8 tensor, output channels first.
        groups: convolution groups (1 for linear).
    Returns:
        torch.uint8 tensor [O, kp].
    """
    o = weight.shape[0]
    k = weight[0].numel() if o else 0
    kp = padded(k)
    rows = torch.zeros(o, kp, dtype=torch.int64)
    rows[:, :k] = weight.reshape(o, k).to(torch.int64) + 128
    opg = o // groups
    out = []
    for g in range(groups):
        grp = rows[g * opg : (g + 1) * opg]
        pairs = opg & ~1
        # [pairs/2, 2, kp/4, 4] -> [pairs/2, kp/4, 2, 4]: 4 bytes of each channel of a pair in turn
        out.append(grp[:pairs].reshape(pairs // 2, 2, kp // 4, 4).permute(0, 2, 1, 3).reshape(pairs, kp))
        out.append(grp[pairs:])
    return torch.cat(out).to(torch.uint8) if out else rows.to(torch.uint8)


def unpack_weight(packed, shape, groups=1):
    """The int8 weight of `shape` that pack_weight(weight, groups) packed."""
    o = shape[0]
    k = 1
    for d in shape[1:]:
        k *= int(d)
    kp = packed.shape[1]
    opg = o // groups
    rows = packed.to(torch.int64)
    out = []
    for g in range(groups):
        grp = rows[g * opg : (g + 1) * opg]
        pairs = opg & ~1
        out.append(grp[:pairs].reshape(pairs // 2, kp // 4, 2, 4).permute(0, 2, 1, 3).reshape(pairs, kp))
        out.append(grp[pairs:])
    rows = torch.cat(out)
    return (rows[:, :k] - 128).to(torch.int8).reshape(shape)


def channel_table(weight, bias, requant, x_zp):
    """int32 [O, 8]: (C + OFFSET, M, s, L, C, -L, s', R) per output channel (module docstring)."""
    o = weight.shape[0]
    c = bias.to(torch.int64) - (128 + x_zp) * weight.to(torch.int64).reshape(o, -1).sum(1)
    quant_ref.check_range(c, OFFSET, "folded bias")
    rq = requant.to(torch.int64).reshape(o, 3)
    s = rq[:, 1]
    s2 = torch.where(s >= quant_ref.SPLIT_FROM, s - 15, s)
    cols = [c + OFFSET, rq[:, 0], s, rq[:, 2], c, -rq[:, 2], s2, torch.ones_like(s2) << (s2 - 1)]
    return torch.stack(cols, 1).to(torch.int32)


def unpack_channels(channels, weight, x_zp):
    """(bias int32 [O], requant int32 [O, 3]) of a channel table, given the unpacked weight."""
    o = weight.shape[0]
    t = channels.to(torch.int64)
    bias = t[:, 0] - OFFSET + (128 + x_zp) * weight.to(torch.int64).reshape(o, -1).sum(1)
    return bias.to(torch.int32), t[:, 1:4].to(torch.int32)


def packed_args(name, args):
    """The arguments of the `_packed` form of mpy_et_quant `name` (conv2d,
    conv1d or linear), given the functional form's (constants as tensors)."""
    if name == "linear":
        x, w, b, rq, zx, zo, lo, hi = args
        return [x, pack_weight(w), channel_table(w, b, rq, zx), zx, zo, lo, hi]
    x, w, b, rq, stride, padding, dilation, groups, zx, zo, lo, hi = args
    ks = [int(d) for d in w.shape[2:]]
    return [x, pack_weight(w, groups), channel_table(w, b, rq, zx), ks, stride, padding, dilation, groups, zx, zo, lo, hi]


def conv_packed(x, weight, channels, kernel_size, stride, padding, dilation, groups, x_zp, out_zp, out_min, out_max):
    """Reference of conv2d_packed / conv1d_packed: ref.conv2d on the unpacked constants."""
    shape = [weight.shape[0], x.shape[1] // groups] + list(kernel_size)
    w = unpack_weight(weight, shape, groups)
    b, rq = unpack_channels(channels, w, x_zp)
    return quant_ref.conv2d(x, w, b, rq, stride, padding, dilation, groups, x_zp, out_zp, out_min, out_max)


def linear_packed(x, weight, channels, x_zp, out_zp, out_min, out_max):
    """Reference of linear_packed: ref.linear on the unpacked constants."""
    w = unpack_weight(weight, [weight.shape[0], x.shape[-1]])
    b, rq = unpack_channels(channels, w, x_zp)
    return quant_ref.linear(x, w, b, rq, x_zp, out_zp, out_min, out_max)

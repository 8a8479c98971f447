"""The packed int8 layout (host_tools/quantize/pack.py): every byte where the
module docstring says, and unpacking gives back the weight, bias and requantization."""

import pytest
import torch

from host_tools.quantize import pack
from host_tools.quantize import ref as quant_ref


@pytest.mark.parametrize(
    "shape, groups",
    [((5, 3, 3, 3), 1), ((6, 2, 3, 2), 2), ((7, 5), 1), ((4, 1, 3, 3), 4), ((1, 8, 3, 3), 1), ((9, 4, 1, 1), 3)],
)
def test_bytes_are_where_the_layout_says(shape, groups):
    g = torch.Generator().manual_seed(sum(shape))
    w = torch.randint(-127, 128, shape, generator=g).to(torch.int8)
    p = pack.pack_weight(w, groups)
    o, k = shape[0], w[0].numel()
    kp = (k + 3) & ~3
    assert p.dtype == torch.uint8 and tuple(p.shape) == (o, kp)
    flat, opg = p.reshape(-1), o // groups
    seen = torch.zeros(o * kp, dtype=torch.bool)
    for oc in range(o):
        j = oc % opg
        start, step = (oc - j) * kp + j * kp, 4
        if j < (opg & ~1):
            start, step = start + (j & 1) * (4 - kp), 8
        for i in range(k):
            at = start + (i >> 2) * step + (i & 3)
            assert int(flat[at]) == int(w.reshape(o, k)[oc, i]) + 128, (oc, i)
            seen[at] = True
    assert int(flat[~seen].abs().sum()) == 0  # the padding positions hold 0
    assert torch.equal(pack.unpack_weight(p, list(shape), groups), w)


def test_channel_table_folds_the_bias_and_unpacks():
    g = torch.Generator().manual_seed(1)
    w = torch.randint(-127, 128, (6, 3, 3, 3), generator=g).to(torch.int8)
    b = torch.randint(-5000, 5000, (6,), generator=g).to(torch.int32)
    rq = quant_ref.requant_table(torch.full((6,), 0.001))
    t = pack.channel_table(w, b, rq, -7)
    want = b.to(torch.int64) - (128 - 7) * w.to(torch.int64).reshape(6, -1).sum(1) + pack.OFFSET
    assert torch.equal(t[:, 0].to(torch.int64), want) and torch.equal(t[:, 1:4], rq)
    s2 = torch.where(rq[:, 1] >= 22, rq[:, 1] - 15, rq[:, 1])
    arm = torch.stack([want - pack.OFFSET, -rq[:, 2].to(torch.int64), s2.to(torch.int64), 1 << (s2.to(torch.int64) - 1)], 1)
    assert torch.equal(t[:, 4:].to(torch.int64), arm)
    b2, rq2 = pack.unpack_channels(t, w, -7)
    assert torch.equal(b2, b) and torch.equal(rq2, rq)

"""A transformer encoder block (pre-norm): multi-head self-attention and a GELU
feed-forward layer, each with layer norm and a residual connection.

Attention is written out (q, k, v projections, scaled dot products, softmax)
rather than nn.MultiheadAttention, whose eval-mode fast path exports as one
fused kernel that no portable runtime has."""

import math

import torch
from torch import nn

from host_tools.zoo.common import finish


class EncoderBlock(nn.Module):
    def __init__(self, d=32, heads=4, ff=64):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.norm2 = nn.LayerNorm(d)
        self.ff1 = nn.Linear(d, ff)
        self.ff2 = nn.Linear(ff, d)

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.norm1(x)).reshape(b, t, 3, h, d // h).permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d // h), dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.ff2(nn.functional.gelu(self.ff1(self.norm2(x))))


def build(name):
    return finish(EncoderBlock(), [(1, 16, 32)], seed=8)

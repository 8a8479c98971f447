"""A transformer encoder block: torch.nn.TransformerEncoderLayer as a user writes
it (pre-norm, 4-head self-attention, GELU feed-forward, 16 tokens x 32).

torch.export traces nn.MultiheadAttention's reference path (the eval fast path,
torch._transformer_encoder_layer_fwd, is eager-only) and core ATen decomposes
scaled dot-product attention into bmm, _softmax and the ops that guard fully
masked rows (any, logical_not, where): all portable operators.
"""

from torch import nn

from host_tools.zoo.common import finish


def build(name):
    block = nn.TransformerEncoderLayer(
        d_model=32, nhead=4, dim_feedforward=64, dropout=0.0, activation="gelu", batch_first=True, norm_first=True
    )
    return finish(block, [(1, 16, 32)], seed=8)

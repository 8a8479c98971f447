"""Which aten operators quantize how: shared by the quantizer (pt2e.py), which
annotates them, and the lowering (lower.py), which turns them into
mpy_et_quant:: operators."""

import torch

_aten = torch.ops.aten

# Ops whose int8 output keeps the input's scale and zero point (exact on int8).
SAME_SCALE = {
    _aten.max_pool2d.default,
    _aten.max_pool1d.default,
    _aten.upsample_nearest2d.vec,
    _aten.flatten.using_ints,
    _aten.view.default,
    _aten.reshape.default,
    _aten.permute.default,
    _aten.squeeze.dim,
    _aten.squeeze.dims,
    _aten.unsqueeze.default,
    _aten.slice.Tensor,
    _aten.select.int,
    _aten.clone.default,
    _aten._unsafe_view.default,
    _aten.relu.default,
    _aten.relu_.default,
}
# Weighted ops: input, weight (per channel), float bias left to quantize/lower.py.
WEIGHTED = {_aten.conv2d.default, _aten.conv1d.default, _aten.linear.default}
# Ops with their own output scale.
RESCALE = {
    _aten.add.Tensor,
    _aten.mul.Tensor,
    _aten.avg_pool2d.default,
    _aten.adaptive_avg_pool2d.default,
    _aten.mean.dim,
    _aten.cat.default,
}
# Softmax: output scale 1/256, zero point -128 (as TFLite Micro / CMSIS-NN).
SOFTMAX = {_aten.softmax.int, _aten._softmax.default}
SOFTMAX_LEVELS = 256
# log_softmax: its own (observed) output scale; tables in host_tools/quantize/ref_log_softmax.py.
LOG_SOFTMAX = {_aten.log_softmax.int, _aten._log_softmax.default}
# Elementwise functions of one input: a 256-entry table (mpy_et_quant::lut).
# Bounded outputs get fixed parameters (TFLite Micro's): sigmoid-like 1/256
# with zero point -128, tanh 1/128 with 0; the others are observed.
LUT = {
    _aten.sigmoid.default: (1.0 / 256, -128),
    _aten.hardsigmoid.default: (1.0 / 256, -128),
    _aten.tanh.default: (1.0 / 128, 0),
    _aten.gelu.default: None,
    _aten.silu.default: None,
    _aten.hardswish.default: None,
    _aten.elu.default: None,
    _aten.leaky_relu.default: None,
    _aten.exp.default: None,
}
# Clamps folded into the producer's output (relu, relu6).
CLAMPS = {_aten.relu.default, _aten.relu_.default, _aten.relu6.default, _aten.hardtanh.default, _aten.hardtanh_.default}

"""Kernels of ExecuTorch's Cortex-M operators (cortex_m::X.out -> cortex_m/op_X.py).

ExecuTorch's own int8 flow for Cortex-M (executorch.backends.cortex_m) lowers
to these operators; their semantics are ExecuTorch's torch reference
(executorch/backends/cortex_m/ops/operators.py), which CMSIS-NN implements on
the device. The requantization they share (TFLite multiplier/shift) is in
cmsis.py; tensor layouts (dim orders) in layout.py.
"""

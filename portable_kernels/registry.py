"""The kernel registry: operator name -> (module, function). Plain data.

A selective build writes a copy of this table holding only the operators a
program uses (only their modules are then imported on the device).
"""

KERNELS = {
    "aten::relu.out": ("portable_kernels.op_relu", "relu_out"),
    "aten::add.out": ("portable_kernels.op_add", "add_out"),
    "aten::add.Scalar_out": ("portable_kernels.op_add", "add_scalar_out"),
}

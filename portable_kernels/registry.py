"""The kernel registry: operator name -> (module, function). Plain data.

A selective build writes a copy of this table holding only the operators a
program uses (only their modules are then imported on the device).
"""

KERNELS = {
    "aten::_log_softmax.out": ("portable_kernels.op_log_softmax", "log_softmax_out"),
    "aten::_softmax.out": ("portable_kernels.op_softmax", "softmax_out"),
    "aten::add.out": ("portable_kernels.op_add", "add_out"),
    "aten::add.Scalar_out": ("portable_kernels.op_add", "add_scalar_out"),
    "aten::addmm.out": ("portable_kernels.op_addmm", "addmm_out"),
    "aten::avg_pool2d.out": ("portable_kernels.op_avg_pool2d", "avg_pool2d_out"),
    "aten::bmm.out": ("portable_kernels.op_bmm", "bmm_out"),
    "aten::cat.out": ("portable_kernels.op_cat", "cat_out"),
    "aten::clamp.out": ("portable_kernels.op_clamp", "clamp_out"),
    "aten::clone.out": ("portable_kernels.op_clone", "clone_out"),
    "aten::convolution.out": ("portable_kernels.op_convolution", "convolution_out"),
    "aten::div.out": ("portable_kernels.op_div", "div_out"),
    "aten::div.Scalar_out": ("portable_kernels.op_div", "div_scalar_out"),
    "aten::hardtanh.out": ("portable_kernels.op_hardtanh", "hardtanh_out"),
    "aten::max_pool2d_with_indices.out": ("portable_kernels.op_max_pool2d_with_indices", "max_pool2d_with_indices_out"),
    "aten::mean.out": ("portable_kernels.op_mean", "mean_out"),
    "aten::mm.out": ("portable_kernels.op_mm", "mm_out"),
    "aten::mul.out": ("portable_kernels.op_mul", "mul_out"),
    "aten::mul.Scalar_out": ("portable_kernels.op_mul", "mul_scalar_out"),
    "aten::permute_copy.out": ("portable_kernels.op_permute_copy", "permute_copy_out"),
    "aten::relu.out": ("portable_kernels.op_relu", "relu_out"),
    "aten::sigmoid.out": ("portable_kernels.op_sigmoid", "sigmoid_out"),
    "aten::sub.out": ("portable_kernels.op_sub", "sub_out"),
    "aten::sub.Scalar_out": ("portable_kernels.op_sub", "sub_scalar_out"),
    "aten::sum.IntList_out": ("portable_kernels.op_sum", "sum_intlist_out"),
    "aten::tanh.out": ("portable_kernels.op_tanh", "tanh_out"),
    "aten::view_copy.out": ("portable_kernels.op_view_copy", "view_copy_out"),
}

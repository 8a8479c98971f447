"""aten::sym_size.int: the size of one dim of a tensor with a dynamic shape
(ExecuTorch's emitter writes it into an Int value that later size lists,
e.g. executorch_prim::et_view's, refer to). No step: mpy_et/dynamic.py
computes the size when set_input resizes the tensor and puts it into the
size lists that use it."""

from portable_kernels.util import checks


def sym_size_int(x, dim, out=None):
    checks.is_tensor(x, "sym_size self")
    checks.norm_dim(dim, len(x.sizes), "sym_size")
    return None

"""Kernels that take tensors in any dim order.

A tensor whose bytes are not in the contiguous order (channels-last and
other dim orders ExecuTorch emits) has `dim_order` set (mpy_et/tensor.py);
at load, Method refuses to give one to a kernel that does not accept it
(accepts() below), naming the instruction. A kernel module marks its kernel
functions once:
    dim_orders.mark(conv2d_out)        # reads each tensor's order itself
    dim_orders.mark_same(relu_out)     # elementwise: any order, when shared
A kernel marked `mark` reads each tensor's order (strides from it); one
marked `mark_same` walks memory flat, which is right when every tensor
argument of more than one element has the same sizes and the same order.
The exporter asks the same question (host_tools/lowering/dim_orders.py).
"""

ANY = set()
SAME = set()


def mark(*kernels):
    for k in kernels:
        ANY.add(k)


def mark_same(*kernels):
    for k in kernels:
        SAME.add(k)


def accepts(kernel, vals):
    """True if `kernel` can take these argument values in their dim orders;
    a tensor is anything with `sizes`, `numel` and `dim_order` (None:
    contiguous). Allocates nothing when every tensor is contiguous."""
    if kernel in ANY:
        return True
    first = None
    other = False
    for v in vals:
        if hasattr(v, "sizes"):
            if v.dim_order is not None:
                other = True
            if first is None and v.numel > 1:
                first = v
    if not other:
        return True
    if kernel not in SAME:
        return False
    for v in vals:  # elementwise over memory: every tensor of 2+ elements alike
        if hasattr(v, "sizes") and v.numel > 1:
            if v.dim_order != first.dim_order or len(v.sizes) != len(first.sizes):
                return False
            for k in range(len(v.sizes)):
                if v.sizes[k] != first.sizes[k]:
                    return False
    return True

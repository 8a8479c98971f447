"""Kernels that take tensors in any dim order.

A tensor whose bytes are not in the contiguous order (channels-last and
other dim orders ExecuTorch emits) has `dim_order` set (mpy_et/tensor.py);
at load, Method refuses to give one to a kernel that is not marked here,
naming the instruction. A kernel module marks its kernel functions once:
    dim_orders.mark(conv2d_out)
Such a kernel reads each tensor's order (portable_kernels/cortex_m/layout.py).
"""

ANY = set()


def mark(*kernels):
    for k in kernels:
        ANY.add(k)

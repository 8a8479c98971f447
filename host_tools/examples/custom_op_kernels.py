"""Device kernels of the custom operators in custom_op.py (plain Python: runs
on every port). Our kernel convention (ARCHITECTURE.md): the kernel is called
once, at load, with the instruction's values in schema order (out last),
checks them and returns (step, ctx); execute() calls step(ctx).

KERNELS maps each operator, "namespace::name.overload", to its kernel:
`program.load_method("forward", kernels=custom_op_kernels.KERNELS)`, or
`mpy-et build ... --kernels custom_op_kernels.py` puts it in a dist's registry.
"""

from mpy_et.errors import INVALID_ARGUMENT, MpyEtError

_FLOAT = 6  # ExecuTorch's ScalarType Float


def soft_clip_out(x, limit, out):
    if x.dtype != _FLOAT or out.dtype != _FLOAT or tuple(x.sizes) != tuple(out.sizes):
        raise MpyEtError(INVALID_ARGUMENT, "my_ops::soft_clip.out: float32 x and out of one shape, got %r, %r" % (x, out))
    if limit <= 0:
        raise MpyEtError(INVALID_ARGUMENT, "my_ops::soft_clip.out: limit must be > 0, got %r" % limit)
    return _step, (x.data, out.data, x.numel, float(limit))


def _step(ctx):
    x, out, n, limit = ctx
    for i in range(n):
        v = x[i]
        out[i] = limit * v / ((v if v >= 0 else -v) + limit)


KERNELS = {"my_ops::soft_clip.out": soft_clip_out}

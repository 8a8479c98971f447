"""executorch_prim::et_view.default: out is x's storage under out's shape
(ExecuTorch's view of a tensor with a dynamic shape: not planned, its data
is x's). No step: out is bound to x's bytes here, at load and whenever
set_input resizes them (mpy_et/dynamic.py gives out its new shape first)."""

from portable_kernels.util import checks


def et_view_default(x, size, out):
    checks.is_tensor(x, "et_view self")
    checks.is_tensor(out, "et_view out")
    checks.same_dtype(x, out)
    if out.numel != x.numel:
        checks.fail("et_view: out %s does not hold the %d elements of self %s" % (checks.shape_str(out), x.numel, checks.shape_str(x)))
    out.bind(x.buf, x.offset)
    return None

# Runs on a target (CPython or MicroPython): cortex_m:: convolution, linear and
# average-pool layers on pseudo-random channels-last data, through the port's
# fast path (viper; Thumb dot products on Arm) and the pure-Python reference
# step in the same process (tests/test_cortex_m_ops.py holds the reference to
# ExecuTorch's). Prints one line per layer:
#   LAYER <name>|<step function>|<checksum>|<fast == reference>|<heap locked>
# tests/test_cortex_m_fast.py compares the checksums across targets.
from mpy_et import dtypes
from mpy_et.port import heap_lock, heap_unlock
from mpy_et.tensor import Tensor
from portable_kernels.cortex_m import conv, pool
from portable_kernels.cortex_m.op_quantized_avg_pool2d import quantized_avg_pool2d_out
from portable_kernels.cortex_m.op_quantized_conv2d import quantized_conv2d_out
from portable_kernels.cortex_m.op_quantized_depthwise_conv2d import quantized_depthwise_conv2d_out
from portable_kernels.cortex_m.op_quantized_linear import _linear, quantized_linear_out

_seed = [4321]
CL = (0, 2, 3, 1)


def rnd(lo, hi):
    _seed[0] = (_seed[0] * 1103515245 + 12345) & 0x7FFFFFFF
    return lo + (_seed[0] >> 8) % (hi - lo + 1)


def tensor(dtype, sizes, lo, hi, order=None):
    t = Tensor(dtype, tuple(sizes))
    t.bind(bytearray(t.nbytes), 0)
    if order is not None:
        t.dim_order = order
    for i in range(t.numel):
        t.data[i] = rnd(lo, hi)
    return t


def mults(n):
    # multipliers over the whole CMSIS range, shifts from -30 (rounds to 0/+-1) to +1
    # (saturates), small right shifts giving many rounding ties
    return tensor(dtypes.INT, (n,), 1 << 20, 0x7FFFFFFF), tensor(dtypes.INT, (n,), -30, 1)


def conv_layer(c, co, hw, k, stride, pad, groups, order):
    x = tensor(dtypes.CHAR, (1, c, hw, hw), -128, 127, order)
    w = tensor(dtypes.CHAR, (co, k, k, c // groups), -128, 127)
    b = tensor(dtypes.INT, (co,), -5000, 5000)
    m, s = mults(co)
    oh = (hw + 2 * pad - k) // stride + 1
    out = tensor(dtypes.CHAR, (1, co, oh, oh), 0, 0, order)
    return out, quantized_conv2d_out(x, w, b, [stride, stride], [pad, pad], [1, 1], 7, -3, m, s, -128, 127, None, out)


def dw_layer(c, dm, hw, k, pad, order):
    x = tensor(dtypes.CHAR, (1, c, hw, hw), -128, 127, order)
    w = tensor(dtypes.CHAR, (1, k, k, c * dm), -128, 127)
    b = tensor(dtypes.INT, (c * dm,), -5000, 5000)
    m, s = mults(c * dm)
    oh = hw + 2 * pad - k + 1
    out = tensor(dtypes.CHAR, (1, c * dm, oh, oh), 0, 0, order)
    return out, quantized_depthwise_conv2d_out(x, w, b, [1, 1], [pad, pad], [1, 1], dm, 128, -128, m, s, -128, 127, None, out)


def linear_layer(k, o, kernel_sum):
    x = tensor(dtypes.CHAR, (2, k), -128, 127)
    w = tensor(dtypes.CHAR, (o, k), -128, 127)
    c = tensor(dtypes.INT, (1, o) if kernel_sum else (o,), -20000, 20000)
    out = tensor(dtypes.CHAR, (2, o), 0, 0)
    bias, ks = (None, c) if kernel_sum else (c, None)
    return out, quantized_linear_out(x, w, bias, ks, 128, 0, -5, [1518500250], [-9], 127, -128, out)


def avg_layer(c, hw, k, zp):
    x = tensor(dtypes.CHAR, (1, c, hw, hw), -128, 127, CL)
    oh = (hw - k) // k + 1
    out = tensor(dtypes.CHAR, (1, c, oh, oh), 0, 0, CL)
    return out, quantized_avg_pool2d_out(x, [k, k], [k, k], [0, 0], False, zp, 1581513600, -19, None, out)


LAYERS = (
    ("conv 1x1 16 -> 12", lambda: conv_layer(16, 12, 5, 1, 1, 0, 1, CL)),
    ("conv 3x3 pad 1 8 -> 6", lambda: conv_layer(8, 6, 6, 3, 1, 1, 1, CL)),
    ("conv 3x3 s2 contiguous 5 -> 4", lambda: conv_layer(5, 4, 7, 3, 2, 1, 1, None)),
    ("conv 3x3 grouped 6 -> 6 / 3", lambda: conv_layer(6, 6, 5, 3, 1, 1, 3, CL)),
    ("depthwise 3x3 pad 1 c8", lambda: dw_layer(8, 1, 6, 3, 1, CL)),
    ("depthwise 3x3 c1 x8", lambda: dw_layer(1, 8, 6, 3, 1, CL)),
    ("depthwise 3x3 c3 x2", lambda: dw_layer(3, 2, 6, 3, 0, CL)),
    ("linear 40 -> 10 bias", lambda: linear_layer(40, 10, False)),
    ("linear 40 -> 10 kernel_sum", lambda: linear_layer(40, 10, True)),
    ("avg 2x2 c8 (ties)", lambda: avg_layer(8, 8, 2, -3)),
    ("avg 2x2 c32 (more ties than listed)", lambda: avg_layer(32, 12, 2, 5)),
)

REFERENCE = {conv._viper: conv._conv, pool._avg_viper: pool._avg}


def _routine(fn):
    # asm_thumb functions have no __name__ on the boards
    from portable_kernels.native import cm_dots_s8_thumb

    return "dots" if fn is cm_dots_s8_thumb.dots else "macs" if fn is cm_dots_s8_thumb.macs else "?"


def reference(step, ctx):
    if step in REFERENCE:
        return REFERENCE[step], ctx[-1]
    if step.__name__ == "_viper_or_reference":
        return _linear, ctx[-1]
    return None, None


for name, make in LAYERS:
    out, (step, ctx) = make()
    locked = "-"
    if heap_lock is not None:
        heap_lock()
        try:
            step(ctx)
            locked = "locked"
        finally:
            heap_unlock()
    else:
        step(ctx)
    got = bytes(out.buf)
    ref_step, ref_ctx = reference(step, ctx)
    same = "-"
    if ref_step is not None:
        for i in range(len(out.buf)):
            out.buf[i] = 0
        ref_step(ref_ctx)
        same = "same" if bytes(out.buf) == got else "DIFFERENT"
    total = 0
    for i in range(len(got)):
        total = (total * 31 + got[i]) & 0xFFFFFF
    how = step.__name__
    if step is conv._viper or how == "_viper_or_reference":
        g = ctx[1][5]
        how += "+" + (_routine(ctx[1][6]) if g[34] else "viper") + ("+requant" if g[35] else "")
    print("LAYER %s|%s|%d|%s|%s" % (name, how, total, same, locked))

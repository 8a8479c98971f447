# Runs on unix MicroPython (tests/test_f32_conv_viper.py): every case of
# DATA_DIR/cases.bin through portable_kernels.native.f32_conv_viper.conv under
# micropython.heap_lock() (and f32_conv_dw_viper.conv_dw where there is one
# input channel per group: DWCASE lines), printing the result bits. Case: 19 int32 control
# words (f32_conv_viper.CTL_WORDS), then the float32 words of x, weight and
# bias (none when the bias flag is 0).
import struct
from array import array

import micropython

from portable_kernels.native.f32_conv_dw_viper import conv_dw
from portable_kernels.native.f32_conv_viper import conv

blob = open(DATA_DIR + "/cases.bin", "rb").read()  # noqa: F821 (defined by host_tools.targets.run_code)
pos = 0
case = 0
r = 0
while pos < len(blob):
    head = struct.unpack_from("<19i", blob, pos)
    pos += 76
    n, groups, opg, cpg, h, w, kh, kw = head[:8]
    oh, ow, has_bias = head[14:17]
    nx = n * groups * cpg * h * w
    nw = groups * opg * cpg * kh * kw
    nb = groups * opg if has_bias else 0
    x = memoryview(blob)[pos : pos + 4 * nx]
    pos += 4 * nx
    wt = memoryview(blob)[pos : pos + 4 * nw]
    pos += 4 * nw
    bias = memoryview(blob)[pos : pos + 4 * nb]
    pos += 4 * nb
    ctl = array("i", head)
    o = bytearray(4 * n * groups * opg * oh * ow)
    k = cpg * kh * kw
    xm = bytearray(4 * k)
    xe = bytearray(4 * k)
    wm = bytearray(4 * k * head[17])
    we = bytearray(4 * k * head[17])
    micropython.heap_lock()
    r = conv(0, 0, 0, xm, xe, x, wt, wm, we, o, bias if nb else ctl, ctl)
    micropython.heap_unlock()
    words = struct.unpack("<%dI" % (len(o) // 4), o)
    print("CASE", case, r, " ".join("%x" % v for v in words))
    if cpg == 1 and not head[18]:  # one input channel per group: conv_dw too
        micropython.heap_lock()
        r = conv_dw(x, wm, 0, wt, we, o, bias if nb else ctl, ctl)
        micropython.heap_unlock()
        words = struct.unpack("<%dI" % (len(o) // 4), o)
        print("DWCASE", case, r, " ".join("%x" % v for v in words))
    case += 1

# Whole convolutions through aten::convolution.out (DATA_DIR/ops.bin): per
# case 15 int32 (1-D flag, n, c, h, w, oc, kh, kw, stride, padding, dilation,
# groups, bias flag, transposed flag, output padding), then x, weight and bias; prints the name of
# the step chosen at load and the output bits.
from mpy_et import dtypes  # noqa: E402
from mpy_et.kernels import resolve  # noqa: E402
from mpy_et.tensor import Tensor  # noqa: E402

OP = "aten::convolution.out"
kernel = resolve([OP], {OP: []})[OP]


def tensor(sizes, data):
    t = Tensor(dtypes.FLOAT, sizes)
    buf = bytearray(t.nbytes)
    t.bind(buf, 0)
    if data is not None:
        buf[:] = data
    return t


blob = open(DATA_DIR + "/ops.bin", "rb").read()  # noqa: F821
pos = 0
case = 0
while pos < len(blob):
    one_d, n, c, h, w, oc, kh, kw, s, p, d, g, has_bias, tr, opad = struct.unpack_from("<15i", blob, pos)
    pos += 60
    xs = (n, c, w) if one_d else (n, c, h, w)
    wo, wi = (c, oc // g) if tr else (oc, c // g)
    ws = (wo, wi, kw) if one_d else (wo, wi, kh, kw)
    nx = n * c * h * w
    nw = oc * (c // g) * kh * kw
    x = tensor(xs, blob[pos : pos + 4 * nx])
    pos += 4 * nx
    wt = tensor(ws, blob[pos : pos + 4 * nw])
    pos += 4 * nw
    bias = None
    if has_bias:
        bias = tensor((oc,), blob[pos : pos + 4 * oc])
        pos += 4 * oc
    oh = (h + 2 * p - d * (kh - 1) - 1) // s + 1 if not one_d else 1
    ow = (w + 2 * p - d * (kw - 1) - 1) // s + 1
    if tr:
        oh = (h - 1) * s - 2 * p + d * (kh - 1) + 1 + opad if not one_d else 1
        ow = (w - 1) * s - 2 * p + d * (kw - 1) + 1 + opad
    out = tensor((n, oc, ow) if one_d else (n, oc, oh, ow), None)
    sp = 1 if one_d else 2
    step, ctx = kernel(x, wt, bias, [s] * sp, [p] * sp, [d] * sp, bool(tr), [opad] * sp, g, out)
    step(ctx)
    words = struct.unpack("<%dI" % out.numel, out.buffer)  # before the locked run below
    locked = "-"
    if step.__name__.startswith("_viper"):  # again with the heap locked: no fallback, no allocation
        micropython.heap_lock()
        try:
            step(ctx)
            locked = "ok"
        except MemoryError:
            locked = "alloc"
        micropython.heap_unlock()
    print("OPCASE", case, step.__name__, locked, " ".join("%x" % v for v in words))
    case += 1

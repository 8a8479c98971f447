# Runs on a target (CPython or MicroPython): int8 convolution / linear layers
# of zoo-like shapes on pseudo-random data, through the port's fast path
# (viper, asm_thumb on Arm) and, where there is one, the pure-Python
# reference in the same process. Prints one line per layer:
#   LAYER <name> <step function> <checksum> <fast == reference or "-">
# tests/test_quant_fast.py compares the checksums across targets.
import sys

from mpy_et import dtypes
from mpy_et.tensor import Tensor
from portable_kernels.quantized import requant as q_requant
from portable_kernels.quantized.op_conv2d_packed import conv2d_packed_out
from portable_kernels.quantized.op_linear_packed import linear_packed_out

_seed = [12345]


def rnd(lo, hi):
    _seed[0] = (_seed[0] * 1103515245 + 12345) & 0x7FFFFFFF
    return lo + (_seed[0] >> 8) % (hi - lo + 1)


def tensor(dtype, sizes, lo, hi):
    t = Tensor(dtype, tuple(sizes))
    t.bind(bytearray(t.nbytes), 0)
    for i in range(t.numel):
        t.data[i] = rnd(lo, hi)
    return t


def requant_t(n, low_limits=True):
    t = Tensor(dtypes.INT, (n, 3))
    t.bind(bytearray(t.nbytes), 0)
    for c in range(n):
        s = rnd(16, 40)  # the direct, split and split-with-a-shift-above-22 requantizations
        m = rnd(1 << 12, 1 << 15)
        t.data[3 * c] = m
        t.data[3 * c + 1] = s
        t.data[3 * c + 2] = (1 << 29) if s >= 22 else ((1 << 30) - 1) // m
        if low_limits and c % 3 == 1:  # a limit below saturation: the clamped requantizations (no single multiply on Thumb-2)
            t.data[3 * c + 2] = rnd(0, 3000)
    return t


def packed(w, groups):
    """uint8 [O, kp]: host_tools/quantize/pack.pack_weight, written again here
    (device code may not import the host's)."""
    o = w.sizes[0]
    k = w.numel // o
    kp = (k + 3) & ~3
    t = Tensor(dtypes.BYTE, (o, kp))
    t.bind(bytearray(o * kp), 0)
    opg = o // groups
    for oc in range(o):
        j = oc % opg
        start = (oc - j) * kp + j * kp
        step = 4
        if j < (opg & ~1):
            start += (j & 1) * (4 - kp)
            step = 8
        for i in range(k):
            t.data[start + (i >> 2) * step + (i & 3)] = w.data[oc * k + i] + 128
    return t


def channel_table(w, b, rq, zx):
    """int32 [O, 8] of (C + 2**29, M, s, L, C, -L, s', R), C = bias - (128 + zx) * sum(w):
    pack.channel_table."""
    o = w.sizes[0]
    k = w.numel // o
    t = Tensor(dtypes.INT, (o, 8))
    t.bind(bytearray(32 * o), 0)
    for oc in range(o):
        total = 0
        for i in range(k):
            total += w.data[oc * k + i]
        c = b.data[oc] - (128 + zx) * total
        m, s, lim = rq.data[3 * oc], rq.data[3 * oc + 1], rq.data[3 * oc + 2]
        s2 = s - 15 if s >= 22 else s
        row = (c + (1 << 29), m, s, lim, c, -lim, s2, 1 << (s2 - 1))
        for i in range(8):
            t.data[8 * oc + i] = row[i]
    return t


# name, x, weight, stride, padding, dilation, groups (linear: stride None)
LAYERS = [
    ("conv 3x3 s2 (first layer)", (1, 3, 20, 18), (8, 3, 3, 3), (2, 2), (1, 1), (1, 1), 1),
    ("depthwise 3x3", (1, 16, 12, 10), (16, 1, 3, 3), (1, 1), (1, 1), (1, 1), 16),
    ("depthwise 3x3 s2", (1, 8, 13, 11), (8, 1, 3, 3), (2, 2), (1, 1), (1, 1), 8),
    # planes of more than 512 output pixels: the Arm step works in bands of rows
    ("depthwise 3x3 bands", (1, 2, 40, 36), (2, 1, 3, 3), (1, 1), (1, 1), (1, 1), 2),
    ("depthwise 3x3 s2 bands", (1, 2, 100, 50), (2, 1, 3, 3), (2, 2), (1, 1), (1, 1), 2),
    ("pointwise 16 -> 33", (1, 16, 7, 9), (33, 16, 1, 1), (1, 1), (0, 0), (1, 1), 1),
    # grouped, and a plane of several runs of pixels on armv7e-m (q_conv_viper._prepare_pw)
    ("pointwise grouped 2, 48 -> 12, 150 pixels", (1, 48, 5, 30), (12, 24, 1, 1), (1, 1), (0, 0), (1, 1), 2),
    ("conv 3x3 16 -> 16 (resnet)", (1, 16, 8, 8), (16, 16, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    ("conv 5x5 grouped 2", (2, 6, 11, 11), (10, 3, 5, 5), (1, 1), (2, 2), (1, 1), 2),
    ("linear 100 -> 37, 3 rows", (3, 100), (37, 100), None, None, None, None),
    # a row of more than 512 dots: on Arm, output channels in passes (2 at a time here, the odd last alone)
    ("conv 1x3 130 wide, 21 channels", (1, 4, 1, 130), (21, 4, 1, 3), (1, 1), (0, 1), (1, 1), 1),
    ("conv 1x3 grouped 2, 130 wide", (1, 4, 1, 130), (10, 2, 1, 3), (1, 1), (0, 1), (1, 1), 2),
    ("conv 3x3 8 -> 1 (decoder)", (1, 8, 9, 7), (1, 8, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    ("conv 3x3 s2 4 -> 4 grouped 2", (2, 4, 9, 8), (4, 2, 3, 3), (2, 2), (1, 1), (1, 1), 2),
    ("conv 3x3 s2 1 -> 8 (first layer)", (1, 1, 11, 10), (8, 1, 3, 3), (2, 2), (1, 1), (1, 1), 1),
    # bytes at the ends of their range (x + 128 in {0, 255}, w + 128 in {1, 255}): the largest
    # products of Arm's SMLAD lanes; one pixel per row, an odd count, an odd channel
    ("linear 64 -> 5, 1 row, extremes", (1, 64), (5, 64), None, None, None, None),
    ("pointwise 24 -> 7, 7 wide, extremes", (1, 24, 3, 7), (7, 24, 1, 1), (1, 1), (0, 0), (1, 1), 1),
    ("depthwise 3x3 s2, extremes", (1, 4, 7, 9), (4, 1, 3, 3), (2, 2), (1, 1), (1, 1), 4),
    # stride 1, an odd row (ds_cnn's 25 x 5 maps): on the DSP extension the last pixel of a row is a pair's first
    ("depthwise 3x3 odd rows, batch 2, extremes", (2, 3, 6, 5), (3, 1, 3, 3), (1, 1), (1, 1), (1, 1), 3),
    ("depthwise 3x3 pad 2 x 0, 7 wide", (1, 2, 5, 7), (2, 1, 3, 3), (1, 1), (2, 0), (1, 1), 2),
    # few channels on Thumb-2: by output pixels (native/q_conv_mla_thumb.py), each of its four loops
    ("conv 5x5 1 -> 6 (lenet5)", (1, 1, 14, 13), (6, 1, 5, 5), (1, 1), (0, 0), (1, 1), 1),
    ("conv 5x5 rows s2 pad 2, 3 -> 5, batch 2, extremes", (2, 3, 11, 12), (5, 3, 5, 5), (2, 1), (2, 2), (1, 1), 1),
    ("conv 3x3 rows dilated 2, 6 -> 3", (1, 6, 9, 10), (3, 6, 3, 3), (1, 1), (2, 1), (2, 1), 1),
    ("conv 1x5, 3 -> 16, 40 wide", (1, 3, 1, 40), (16, 3, 1, 5), (1, 1), (0, 2), (1, 1), 1),
    # on the DSP extension by output pixels and channels (q_conv_mla_dsp.rows_oc): stride 2
    # across, rows dilated, batch 2, an odd channel count; stride 1 on rows of 14 (3 groups of 4
    # pixels and the last 2 on their own)
    ("conv 3x3 s2 dilated 2 x 1, 5 -> 7, batch 2, extremes", (2, 5, 13, 11), (7, 5, 3, 3), (2, 2), (1, 1), (2, 1), 1),
    ("conv 3x3 16 -> 8, 14 wide (autoencoder)", (1, 16, 6, 14), (8, 16, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    # 12 x 12 x 31 sums: bands of 5, 5 and 2 rows (each band's sums at once: at most 2,048)
    ("conv 3x3 3 -> 31, bands", (1, 3, 12, 12), (31, 3, 3, 3), (1, 1), (1, 1), (1, 1), 1),
]

FALLBACK_DW = ("depthwise 3x3", "depthwise 3x3 s2")


def run_layer(spec, fast):
    name, xs, ws, stride, padding, dilation, groups = spec
    _seed[0] = len(name) * 7919
    x = tensor(dtypes.CHAR, xs, -128, 127)
    w = tensor(dtypes.CHAR, ws, -127, 127)
    if name.endswith("extremes"):
        for t, lo, hi in ((x, -128, 127), (w, -127, 127)):
            for i in range(t.numel):
                t.data[i] = hi if t.data[i] & 1 else lo
    b = tensor(dtypes.INT, (ws[0],), -20000, 20000)
    # the 3x3 depthwise assembler step (q_dw_step_thumb) takes layers whose accumulator clamp changes
    # nothing; two depthwise layers keep the low limits: the plane-by-plane step, its fallback
    rq = requant_t(ws[0], not name.startswith("depthwise") or name in FALLBACK_DW)
    zx, zo = rnd(-128, 127), rnd(-100, 100)
    # a fused ReLU's lower clamp on every other layer, an upper one on every third
    lo = zo if len(name) & 1 else -128
    hi = rnd(zo, 127) if len(name) % 3 == 0 else 127
    q_requant.use_viper = fast
    if stride is None:
        out = Tensor(dtypes.CHAR, (xs[0], ws[0]))
        out.bind(bytearray(out.numel), 0)
        step, ctx = linear_packed_out(x, packed(w, 1), channel_table(w, b, rq, zx), zx, zo, lo, hi, out)
    else:
        oh = (xs[2] + 2 * padding[0] - dilation[0] * (ws[2] - 1) - 1) // stride[0] + 1
        ow = (xs[3] + 2 * padding[1] - dilation[1] * (ws[3] - 1) - 1) // stride[1] + 1
        out = Tensor(dtypes.CHAR, (xs[0], ws[0], oh, ow))
        out.bind(bytearray(out.numel), 0)
        ch = channel_table(w, b, rq, zx)
        step, ctx = conv2d_packed_out(x, packed(w, groups), ch, ws[2:], stride, padding, dilation, groups, zx, zo, lo, hi, out)
    try:
        import micropython

        if not fast:  # the reference is proved allocation-free on wasm (tests/test_kernels.py)
            raise ImportError
        micropython.heap_lock()
        try:
            step(ctx)
        finally:
            micropython.heap_unlock()
    except ImportError:
        step(ctx)
    return step_name(step, ctx), bytes(out.buf)


def step_name(step, ctx):
    """module.function of a step (MicroPython functions have no __module__)."""
    for mod in (
        "native.q_conv_dw_viper",
        "native.q_conv_dw3x3_thumb",
        "native.q_dw_step_thumb",
        "native.q_conv_direct_viper",
        "native.q_conv_mla_thumb",
        "native.q_conv_mla_dsp",
        "native.q_conv_viper",
        "native.q_conv_pw_viper",
        "native.q_linear_thumb",
        "quantized.op_conv2d_packed",
    ):
        m = sys.modules.get("portable_kernels." + mod)
        for fn in ("_step", "_step_pw", "_step_thumb", "_step_3x3", "_step_oc", "_conv_ref", "_linear", "dw3x3"):
            if m is not None and getattr(m, fn, None) is step:
                if mod in ("native.q_conv_viper", "native.q_conv_pw_viper"):  # the dot kernel it calls: asm_thumb or viper
                    dots = "viper"
                    for name in ("dsp", "thumb", "thumb2"):
                        dm = sys.modules.get("portable_kernels.native.q_dot_" + name)
                        if dm is not None and ctx[9] in (dm.dots, getattr(dm, "dotsx", None)):
                            dots = name
                    return "%s.%s+%s" % (mod, fn, dots)
                if mod == "native.q_conv_dw3x3_thumb":  # its window kernel: SMLAD where the port has it
                    dm = sys.modules.get("portable_kernels.native.q_dw_dsp")
                    if dm is not None and m._shared[7] is dm.dw3x3:  # the kernel every 3x3 depthwise step shares
                        return "%s.%s+dsp" % (mod, fn)
                return mod + "." + fn
    return "?"


def main():
    has_fast = q_requant.HAS_VIPER
    for spec in LAYERS:
        step, got = run_layer(spec, has_fast)
        same = "-"
        if has_fast:
            ref_step, want = run_layer(spec, False)
            same = "same" if got == want else "DIFFERENT"
        total = 0
        for i in range(len(got)):
            total = (total * 31 + got[i]) & 0xFFFFFF
        print("LAYER %s|%s|%d|%s" % (spec[0], step, total, same))


main()

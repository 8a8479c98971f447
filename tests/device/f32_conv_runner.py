# Runs on unix MicroPython (tests/test_f32_conv_viper.py): every case of
# DATA_DIR/cases.bin through portable_kernels.f32_conv_viper.conv under
# micropython.heap_lock(), printing the result bits. Case: 17 int32 control
# words (f32_conv_viper.CTL_WORDS), then the float32 words of x, weight and
# bias (none when the bias flag is 0).
import struct
from array import array

import micropython

from portable_kernels.f32_conv_viper import conv

blob = open(DATA_DIR + "/cases.bin", "rb").read()  # noqa: F821 (defined by host_tools.targets.run_code)
pos = 0
case = 0
r = 0
while pos < len(blob):
    head = struct.unpack_from("<17i", blob, pos)
    pos += 68
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
    micropython.heap_lock()
    r = conv(xm, xm, 0, xe, x, wt, o, bias if nb else ctl, ctl)
    micropython.heap_unlock()
    words = struct.unpack("<%dI" % (len(o) // 4), o)
    print("CASE", case, r, " ".join("%x" % v for v in words))
    case += 1

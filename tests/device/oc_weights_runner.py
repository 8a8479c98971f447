# Runs on the cortex-m7 board (tests/test_oc_weights_dsp.py): every case of
# DATA_DIR/cases.bin through portable_kernels.native.q_oc_weights_dsp.expand under
# heap_lock, into an array or a bytearray. Case: 4 int32 (opg, cpg, kh, kp), the
# packed weights (opg * kp bytes), the expected words (the host's
# q_conv_mla_dsp.oc_weights). Prints per case:
#   CASE <i> <returned> <first wrong word or -1> <got> <want> <guard words intact>
import struct
from array import array

import micropython

from portable_kernels.native.q_oc_weights_dsp import control, expand

_GUARD = 0x5A5A5A5A
blob = open(DATA_DIR + "/cases.bin", "rb").read()  # noqa: F821
pos = 0
case = 0
while pos < len(blob):
    opg, cpg, kh, kp = struct.unpack_from("<4i", blob, pos)
    pos += 16
    wt = memoryview(blob)[pos : pos + opg * kp]
    pos += opg * kp
    n = opg * (1 + 2 * cpg * kh)
    want = array("i", blob[pos : pos + 4 * n])
    pos += 4 * n
    # 4 words past the end: nothing may write there; every other case into a bytearray
    # (portable_kernels/util/scratch.words) instead of an array of int32
    out = array("i", [_GUARD] * (n + 4)) if case & 1 else bytearray(b"\x5a" * (4 * (n + 4)))
    ctl = control(opg, cpg, kh, kp)
    micropython.heap_lock()
    r = expand(wt, out, ctl)
    micropython.heap_unlock()
    out = array("i", out)
    bad = -1
    for i in range(n):
        if out[i] != want[i]:
            bad = i
            break
    guard = out[n] == out[n + 1] == out[n + 2] == out[n + 3] == _GUARD
    print("CASE", case, r, bad, out[bad] if bad >= 0 else 0, want[bad] if bad >= 0 else 0, int(guard))
    case += 1
print("DONE", case)

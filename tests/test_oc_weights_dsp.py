"""portable_kernels/native/q_oc_weights_dsp.expand on the Cortex-M7 (the only board with the
DSP extension): for every geometry, random packed bytes (0..255, padding bytes too), the
words must be exactly those of the Python reference below (the layout rows_oc reads),
written under heap_lock, with nothing written past the output (tests/device/oc_weights_runner.py)."""

import os
import random
import struct
from array import array

from conftest import require

from host_tools.targets import run_code

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "device", "oc_weights_runner.py")
# (opg, cpg, kh): every opg x cpg x kh of the brief, then rows left after groups of 4 (R % 4 = 1, 2, 3)
GEOMS = [(o, c, k) for o in (1, 2, 3, 4, 8, 16) for c in (1, 3, 8, 16) for k in (1, 3)]
GEOMS += [(o, c, k) for o in (1, 2, 5, 6) for c, k in ((2, 1), (6, 1), (5, 3), (7, 3), (11, 1))]


def oc_weights(wt, geom, kp):
    """The reference: the words rows_oc reads (native/q_conv_mla_dsp.py), as its load-time
    Python loop first wrote them (each run now expands them with q_oc_weights_dsp.expand)."""
    opg, cpg, kh = geom[2], geom[3], geom[6]
    out = array("i", bytearray(4 * opg * (1 + 2 * cpg * kh)))
    pairs = opg & ~1
    for ch in range(opg):
        s = 0
        for r in range(cpg * kh):
            v = []
            for kx in range(3):
                k = r * 3 + kx
                if ch < pairs:
                    a = (ch & ~1) * kp + (ch & 1) * 4 + (k >> 2) * 8 + (k & 3)
                else:
                    a = ch * kp + k
                v.append(wt[a] - 128)
            s += v[0] + v[1] + v[2]
            i = opg + 2 * (r * opg + ch)
            out[i] = (v[0] & 0xFFFF) | (v[2] << 16)
            out[i + 1] = v[1]
        out[ch] = 128 * s
    return out


def _cases(seed=20):
    rnd = random.Random(seed)
    cases = []
    for opg, cpg, kh in GEOMS:
        kp = (cpg * kh * 3 + 3) & ~3
        wt = bytes(rnd.randrange(256) for _ in range(opg * kp))
        cases.append((opg, cpg, kh, kp, wt))
    # extremes: every weight -128 or 127 (the sums' largest magnitudes)
    for fill in (0, 255):
        cases.append((16, 16, 3, 144, bytes([fill]) * 16 * 144))
    return cases


def _blob(cases):
    blob = bytearray()
    for opg, cpg, kh, kp, wt in cases:
        blob += struct.pack("<4i", opg, cpg, kh, kp) + wt
        want = oc_weights(wt, (0, 0, opg, cpg, 0, 0, kh), kp)
        assert len(blob) % 4 == 0  # the weights stay word-aligned (LDM)
        blob += want.tobytes()
    return bytes(blob)


def test_the_reference_reads_the_packed_layout():
    """The copied reference against a plain reading of pack.py's layout (opg 3: a pair and a last
    odd channel; K = 9, kp = 12: 3 padding bytes per channel that no result may depend on)."""
    opg, kp, k_used = 3, 12, 9
    w = [[(ch * 31 + k * 7) % 256 - 128 for k in range(k_used)] for ch in range(opg)]
    wt = bytearray(range(200, 200 + opg * kp))  # padding keeps these bytes
    for ch in range(opg):
        for k in range(k_used):
            a = (ch & ~1) * kp + (ch & 1) * 4 + (k >> 2) * 8 + (k & 3) if ch < 2 else ch * kp + k
            wt[a] = w[ch][k] + 128
    out = oc_weights(wt, (0, 0, opg, 3, 0, 0, 1), kp)
    assert list(out[:opg]) == [128 * sum(w[ch]) for ch in range(opg)]
    for r in range(3):
        for ch in range(opg):
            i = opg + 2 * (r * opg + ch)
            lo, hi = out[i] & 0xFFFF, out[i] >> 16
            assert (lo - 65536 if lo >= 32768 else lo, hi, out[i + 1]) == (w[ch][3 * r], w[ch][3 * r + 2], w[ch][3 * r + 1])


def test_expand_matches_oc_weights_on_the_cortex_m7():
    require("cortex-m7")
    cases = _cases()
    out = run_code("cortex-m7", open(RUNNER).read(), files={"cases.bin": _blob(cases)}, timeout=300)
    rows = [line.split()[1:] for line in out.splitlines() if line.startswith("CASE")]
    assert len(rows) == len(cases), out[-2000:]
    for (opg, cpg, kh, kp, _w), (_, ret, bad, got, want, guard) in zip(cases, rows):
        assert (ret, bad, guard) == ("0", "-1", "1"), ((opg, cpg, kh, kp), "word", bad, got, want)

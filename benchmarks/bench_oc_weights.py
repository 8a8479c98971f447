"""rows_oc's weight words expanded on each run (portable_kernels/native/q_oc_weights_dsp.expand)
on the `cortex-m7` board: QEMU instructions (-icount shift=0: ticks_us x 1000) per call and per
(kernel row, output channel), against the same words made by Python code on the board in the
same run (the load-time Python loop and viper loop, _pack, that q_conv_mla_dsp first used
before each run expanded the words with expand: both copied below, one call each). Each call's own cost is
the loop of REPEAT calls less the same loop calling an empty assembler function. Prints a
markdown table (benchmarks/oc_weights.md) and the heap the import takes; not a test.

    python benchmarks/bench_oc_weights.py [--repeat N]
"""

import argparse
import random

from host_tools.targets import run_code

GEOMS = [(8, 16, 3), (16, 8, 3), (16, 16, 3), (4, 16, 3), (3, 16, 3), (1, 16, 3), (8, 5, 3), (8, 3, 3), (8, 1, 3)]

_CODE = """
import gc
import time
from array import array

import micropython

gc.collect()
free = gc.mem_free()
from portable_kernels.native.q_oc_weights_dsp import control, expand

gc.collect()
print("IMPORT", free - gc.mem_free())


@micropython.asm_thumb
def empty(r0, r1, r2):
    mov(r0, 0)


def oc_weights(wt, opg, cpg, kh, kp):
    # q_conv_mla_dsp.oc_weights (branch h56), its geometry unpacked
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


@micropython.viper
def _pack(wobj, oobj, opg: int, rows: int, kp: int):
    # q_conv_mla_dsp._pack (branch h56: oc_weights' words by a viper loop), verbatim
    w = ptr8(wobj)
    o = ptr32(oobj)
    for ch in range(opg):
        base = ch * kp
        gap = 0
        if ch < (opg & ~1):
            base = (ch & ~1) * kp + (ch & 1) * 4
            gap = 4
        s = 0
        for r in range(rows):
            k = 3 * r
            v0 = int(w[base + k + gap * (k >> 2)]) - 128
            k += 1
            v1 = int(w[base + k + gap * (k >> 2)]) - 128
            k += 1
            v2 = int(w[base + k + gap * (k >> 2)]) - 128
            s += v0 + v1 + v2
            i = opg + 2 * (r * opg + ch)
            o[i] = (v0 & 0xFFFF) | (v2 << 16)
            o[i + 1] = v1
        o[ch] = 128 * s


def loop(f, wt, out, ctl, n):
    t0 = time.ticks_us()
    for _ in range(n):
        f(wt, out, ctl)
    return time.ticks_diff(time.ticks_us(), t0)


for opg, cpg, kh, kp in GEOMS:
    wt = open(DATA_DIR + "/w%d_%d_%d.bin" % (opg, cpg, kh), "rb").read()
    out = array("i", bytearray(4 * opg * (1 + 2 * cpg * kh)))
    ctl = control(opg, cpg, kh, kp)
    asm = (loop(expand, wt, out, ctl, REPEAT) - loop(empty, wt, out, ctl, REPEAT)) * 1000 // REPEAT
    t0 = time.ticks_us()
    want = oc_weights(wt, opg, cpg, kh, kp)
    py = time.ticks_diff(time.ticks_us(), t0) * 1000
    vout = array("i", bytearray(len(out) * 4))
    t0 = time.ticks_us()
    _pack(wt, vout, opg, cpg * kh, kp)
    vip = time.ticks_diff(time.ticks_us(), t0) * 1000
    print("ROW", opg, cpg, kh, asm, py, vip, int(bytes(want) == bytes(out) == bytes(vout)))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=200)
    args = ap.parse_args()
    rnd = random.Random(20)
    files, geoms = {}, []
    for opg, cpg, kh in GEOMS:
        kp = (cpg * kh * 3 + 3) & ~3
        files["w%d_%d_%d.bin" % (opg, cpg, kh)] = bytes(rnd.randrange(256) for _ in range(opg * kp))
        geoms.append((opg, cpg, kh, kp))
    code = "GEOMS = %r\nREPEAT = %d\n" % (geoms, args.repeat) + _CODE
    out = run_code("cortex-m7", code, files=files, timeout=600)
    print(
        "| opg | cpg | kh | (row, channel)s | expand: instructions | per (row, channel) | Python oc_weights | ratio | viper _pack | ratio | same words |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|")
    for line in out.splitlines():
        if line.startswith("ROW"):
            opg, cpg, kh, asm, py, vip, same = (int(v) for v in line.split()[1:])
            n = opg * cpg * kh
            cells = (
                opg,
                cpg,
                kh,
                n,
                "{:,}".format(asm),
                "%.2f" % (asm / n),
                "{:,}".format(py),
                "%.0fx" % (py / asm),
                "{:,}".format(vip),
                "%.0fx" % (vip / asm),
            )
            print("| %s |" % " | ".join(str(c) for c in cells + ("yes" if same else "NO",)))
    cost = [line.split()[1] for line in out.splitlines() if line.startswith("IMPORT")][0]
    print("\nImporting the module takes %s bytes of heap." % cost)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

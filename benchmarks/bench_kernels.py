"""Time the hot portable kernels on CPython and MicroPython (not a test).

    python benchmarks/bench_kernels.py [--targets cpython,unix,wasm] [--repeat N]

For each kernel the same device code builds tensors, prepares the kernel
once (load time) and times step(ctx). It prints microseconds per call,
multiply-accumulates per microsecond, and the ratio against a naive
reference loop (direct indexing, bounds tests per tap) timed in the same
run on the same target.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from host_tools.targets import run_code  # noqa: E402

# (name, kernel key, args as device source, MACs, naive reference call)
CASES = [
    (
        "conv2d 1x8x13x13 -> 16ch 3x3",
        "aten::convolution.out",
        "[t((1, 8, 13, 13)), t((16, 8, 3, 3)), t((16,)), (1, 1), (0, 0), (1, 1), False, (0, 0), 1, t((1, 16, 11, 11))]",
        16 * 11 * 11 * 8 * 9,
        "naive_conv",
    ),
    (
        "conv2d 1x8x13x13 -> 16ch 3x3 pad 1",
        "aten::convolution.out",
        "[t((1, 8, 13, 13)), t((16, 8, 3, 3)), t((16,)), (1, 1), (1, 1), (1, 1), False, (0, 0), 1, t((1, 16, 13, 13))]",
        16 * 13 * 13 * 8 * 9,
        "naive_conv",
    ),
    (
        "conv2d depthwise 1x16x13x13 3x3 pad 1",
        "aten::convolution.out",
        "[t((1, 16, 13, 13)), t((16, 1, 3, 3)), t((16,)), (1, 1), (1, 1), (1, 1), False, (0, 0), 16, t((1, 16, 13, 13))]",
        16 * 13 * 13 * 9,
        "naive_conv",
    ),
    (
        "conv2d 1x16x11x11 -> 16ch 1x1",
        "aten::convolution.out",
        "[t((1, 16, 11, 11)), t((16, 16, 1, 1)), t((16,)), (1, 1), (0, 0), (1, 1), False, (0, 0), 1, t((1, 16, 11, 11))]",
        16 * 11 * 11 * 16,
        "naive_conv",
    ),
    (
        "addmm [4,256] x [256,64] + bias",
        "aten::addmm.out",
        "[t((64,)), t((4, 256)), t((256, 64)), 1, 1, t((4, 64))]",
        4 * 256 * 64,
        "naive_addmm",
    ),
    (
        "addmm [1,400] x [400,10] + bias",
        "aten::addmm.out",
        "[t((10,)), t((1, 400)), t((400, 10)), 1, 1, t((1, 10))]",
        400 * 10,
        "naive_addmm",
    ),
]

DEVICE = """
from mpy_et import dtypes
from mpy_et.kernels import resolve
from mpy_et.port import ticks_diff, ticks_us
from mpy_et.tensor import Tensor

REPEAT = %(repeat)d


def t(sizes):
    x = Tensor(dtypes.FLOAT, sizes)
    x.bind(bytearray(x.nbytes), 0)
    for i in range(x.numel):
        x.data[i] = ((i * 7919) %% 2003) / 1001.0 - 1.0
    return x


def naive_conv(args):
    # The obvious loop: every tap tests its bounds.
    x, w, b, stride, pad, dil, _, _, groups, o = args
    n, c, h, wd = x.sizes
    oc, cpg, kh, kw = w.sizes
    _, _, oh, ow = o.sizes
    opg = oc // groups
    xd, wdat, bd, od = x.data, w.data, b.data, o.data
    for bi in range(n):
        for k in range(oc):
            g = k // opg
            for i in range(oh):
                for j in range(ow):
                    s = bd[k]
                    for ci in range(cpg):
                        cin = g * cpg + ci
                        for u in range(kh):
                            y = i * stride[0] - pad[0] + u * dil[0]
                            if y < 0 or y >= h:
                                continue
                            for v in range(kw):
                                z = j * stride[1] - pad[1] + v * dil[1]
                                if z < 0 or z >= wd:
                                    continue
                                s += xd[((bi * c + cin) * h + y) * wd + z] * wdat[((k * cpg + ci) * kh + u) * kw + v]
                    od[((bi * oc + k) * oh + i) * ow + j] = s


def naive_addmm(args):
    b, a, m2, _, _, o = args
    m, k = a.sizes
    n = m2.sizes[1]
    ad, md, bd, od = a.data, m2.data, b.data, o.data
    for i in range(m):
        for j in range(n):
            s = bd[j]
            for q in range(k):
                s += ad[i * k + q] * md[q * n + j]
            od[i * n + j] = s


def timed(fn, arg):
    fn(arg)
    best = None
    for _ in range(REPEAT):
        t0 = ticks_us()
        fn(arg)
        dt = ticks_diff(ticks_us(), t0)
        best = dt if best is None or dt < best else best
    return best


def bench(name, key, args, macs, naive):
    step, ctx = resolve([key], {key: []})[key](*args)
    us = timed(step, ctx)
    ref = timed(naive, args)
    print("BENCH|%%s|%%d|%%d|%%d" %% (name, us, ref, macs))

"""


def device_code(repeat):
    lines = [DEVICE % {"repeat": repeat}]
    for name, key, args, macs, naive in CASES:
        lines.append("bench(%r, %r, %s, %d, %s)" % (name, key, args, macs, naive))
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--targets", default="cpython,unix", help="comma-separated: cpython, unix, wasm")
    p.add_argument("--repeat", type=int, default=5, help="timed calls per kernel (the best is kept)")
    opts = p.parse_args()
    print("%-8s %-40s %10s %9s %12s %8s" % ("target", "kernel", "us/call", "MAC/us", "naive us", "speedup"))
    for target in opts.targets.split(","):
        out = run_code(target, device_code(opts.repeat))
        for line in out.splitlines():
            if not line.startswith("BENCH|"):
                continue
            _, name, us, ref, macs = line.split("|")
            us, ref, macs = int(us), int(ref), int(macs)
            print("%-8s %-40s %10d %9.2f %12d %7.2fx" % (target, name, us, macs / max(us, 1), ref, ref / max(us, 1)))


if __name__ == "__main__":
    main()

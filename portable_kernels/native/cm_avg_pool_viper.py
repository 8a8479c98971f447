"""viper step of the cortex_m:: int8 average pooling (portable_kernels/cortex_m/pool.py),
imported only where the port has a native emitter.

avg(x, o, g, ties): every output as zp + S / n rounded in integers (S the
window's sum of x - zp, n its taps inside the input), through each tensor's
strides; an output at an exact rounding tie (or with more than 180 taps) is
not written but listed in ties (int32 [capacity, 4]: batch, channel, oy, ox)
for the caller to replay ExecuTorch's float32 arithmetic. Returns the
number listed, or -1 when they do not fit (the caller then runs its
reference step). Allocates nothing.
"""

import micropython


@micropython.viper
def avg(x: ptr8, o: ptr8, g: ptr32, ties: ptr32) -> int:  # noqa: F821 (viper types)
    one = 1
    s31 = one << 31
    n = int(g[0])
    c = int(g[1])
    h = int(g[2])
    w = int(g[3])
    xsn = int(g[4])
    xsc = int(g[5])
    xsh = int(g[6])
    xsw = int(g[7])
    oh = int(g[8])
    ow = int(g[9])
    osn = int(g[10])
    osc = int(g[11])
    osh = int(g[12])
    osw = int(g[13])
    kh = int(g[14])
    kw = int(g[15])
    sh = int(g[16])
    sw = int(g[17])
    ph = int(g[18])
    pw = int(g[19])
    dh = int(g[20])
    dw = int(g[21])
    zp = (int(g[22]) ^ s31) - s31
    cap = int(g[23])
    found = 0
    b = 0
    while b < n:
        oy = 0
        while oy < oh:
            ox = 0
            while ox < ow:
                ch = 0
                while ch < c:
                    xc = b * xsn + ch * xsc
                    s = 0
                    cnt = 0
                    ky = 0
                    while ky < kh:
                        iy = oy * sh - ph + ky * dh
                        if 0 <= iy and iy < h:
                            kx = 0
                            while kx < kw:
                                ix = ox * sw - pw + kx * dw
                                if 0 <= ix and ix < w:
                                    s += (x[xc + iy * xsh + ix * xsw] ^ 0x80) - 128
                                    cnt += 1
                                kx += 1
                        ky += 1
                    s -= cnt * zp
                    q = s // cnt
                    r2 = 2 * (s - q * cnt)
                    if r2 == cnt or cnt > 180:
                        if found >= cap:
                            return -1
                        ties[4 * found] = b
                        ties[4 * found + 1] = ch
                        ties[4 * found + 2] = oy
                        ties[4 * found + 3] = ox
                        found += 1
                    else:
                        if r2 > cnt:
                            q += 1
                        v = q + zp
                        if v < -128:
                            v = -128
                        if v > 127:
                            v = 127
                        o[b * osn + ch * osc + oy * osh + ox * osw] = v
                    ch += 1
                ox += 1
            oy += 1
        b += 1
    return found

"""Float32 add, sub and mul in viper with integer soft-float, correctly
rounded (to nearest, ties to even; denormals; overflow to inf), so bit for
bit what IEEE float32 arithmetic gives, and what the bytecode steps give
(a float64 result of two float32 operands rounded to float32).

Imported only where portable_kernels.util.emitters.WIDE (64-bit native words):
a product of two 24-bit mantissas must fit one int. At an inf or NaN operand
the function stops and returns how many elements it wrote: the caller runs
its bytecode loop from there (torch's inf/NaN results; the elements written
stay written, which matters when out is one of the inputs). Literals stay below 2**30 so the module
compiles for 32-bit targets too (which never import it). Does not allocate.
"""

import micropython

# native code for ports with 64-bit words only (emitters.WIDE; host_tools/build_targets.march_list)
MARCH = ("x64", "rv64imc")

ADD = 0
SUB = 1
MUL = 2


@micropython.viper
def binary(a: ptr32, b: ptr32, o: ptr32, op: int, n: int, ia: int, ib: int, io: int, sa: int, sb: int) -> int:  # noqa: F821
    """o[io + i] = a[ia + i * sa] OP b[ib + i * sb] for i < n, OP one of
    ADD, SUB, MUL (plain int arguments: no control array per instruction).
    Returns the count written: n, or the index of the first inf/NaN
    operand."""
    sign_bit = 1
    sign_bit = sign_bit << 31
    inf_bits = 255
    inf_bits = inf_bits << 23
    flip = 0
    if op == 1:
        flip = sign_bit
    for i in range(n):
        x = a[ia]
        y = b[ib] ^ flip
        ia += sa
        ib += sb
        ex = (x >> 23) & 255
        ey = (y >> 23) & 255
        if ex == 255 or ey == 255:
            return i
        mx = x & 0x7FFFFF
        my = y & 0x7FFFFF
        if ex == 0:
            ex = 1
        else:
            mx |= 0x800000
        if ey == 0:
            ey = 1
        else:
            my |= 0x800000
        s = 0
        if op == 2:  # the exact product: mx * my * 2**(ex + ey - 300)
            acc = mx * my
            ae = ex + ey
            if ((x ^ y) >> 31) & 1:
                s = sign_bit
            if acc == 0:
                o[io] = s
                io += 1
                continue
        else:  # the exact sum, with 30 guard bits and a sticky bit
            xa = mx << 30
            ya = my << 30
            if ex >= ey:
                ae = ex
                d = ex - ey
                if d > 60:
                    if ya != 0:
                        ya = 1
                elif d > 0:
                    q = ya >> d
                    if (q << d) != ya:
                        q |= 1
                    ya = q
            else:
                ae = ey
                d = ey - ex
                if d > 60:
                    if xa != 0:
                        xa = 1
                elif d > 0:
                    q = xa >> d
                    if (q << d) != xa:
                        q |= 1
                    xa = q
            if (x >> 31) & 1:
                xa = 0 - xa
            if (y >> 31) & 1:
                ya = 0 - ya
            acc = xa + ya
            ae += 120  # acc * 2**(ae - 150 - 30) == acc * 2**((ae + 120) - 300)
            if acc < 0:
                s = sign_bit
                acc = 0 - acc
            elif acc == 0:  # an exact zero is +0, unless both were -0
                if (x >> 31) & (y >> 31) & 1:
                    s = sign_bit
                o[io] = s
                io += 1
                continue
        # round acc * 2**(ae - 300) to float32 bits (as f32_mm_viper does)
        pp = 0
        q = acc
        if q >> 32:
            q = q >> 32
            pp += 32
        if q >> 16:
            q = q >> 16
            pp += 16
        if q >> 8:
            q = q >> 8
            pp += 8
        if q >> 4:
            q = q >> 4
            pp += 4
        if q >> 2:
            q = q >> 2
            pp += 2
        if q >> 1:
            pp += 1
        fe = pp + ae - 173
        if fe < 1:
            fe = 1
        sh = fe + 150 - ae
        if sh > 0:
            if sh > 62:
                d = sh - 62
                if d > 62:
                    acc = 1
                else:
                    q = acc >> d
                    if (q << d) != acc:
                        q |= 1
                    acc = q
                sh = 62
            r = acc >> sh
            rem = acc - (r << sh)
            half = 1 << (sh - 1)
            if rem > half or (rem == half and (r & 1)):
                r += 1
        else:
            r = acc << (0 - sh)
        bits = ((fe - 1) << 23) + r
        if bits >= inf_bits:
            bits = inf_bits
        o[io] = bits | s
        io += 1
    return n

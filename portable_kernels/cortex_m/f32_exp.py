"""The two float32 exps torch.softmax uses on an x86-64 host, bit for bit.

ExecuTorch's cortex_m::softmax reference is torch.softmax in float32, and
torch takes its exps from two libraries (cortex_m/op_softmax.py says which
where): Sleef's expf_u10 with FMAs (torch's Vectorized<float>::exp on AVX2 /
AVX-512 hosts) and glibc's expf (std::exp; its FMA build, the one an FMA CPU
runs). Neither is correctly rounded, so a plain exp would miss by one ulp
now and then, and at a rounding tie of the output that is one quantum. Both
are replayed here in exact integers (cortex_m/f32.py's (m, e) pairs): the
same results on every port, whatever its floats. Uses ints beyond 2**30:
allocates on 32-bit ports.
"""

from portable_kernels.cortex_m.f32 import add, decode, fma, mul, round_f32, round_int

# Sleef's constants, as float32 bits: log2(e), -ln2 split high/low, polynomial.
_R_LN2 = decode(0x3FB8AA3B)
_L2U = decode(0xBF317200)
_L2L = decode(0xB5BFBE8E)
_C0 = decode(0x39502BDA)
_POLY = tuple(decode(b) for b in (0x3AB696C9, 0x3C0888A6, 0x3D2AAA7A, 0x3E2AAAAB, 0x3F000000))
_M104 = decode(0xC2D00000)  # -104.0


def _less(x, y):
    """x < y for finite float32 pairs."""
    return add(x, (-y[0], y[1]))[0] < 0


def exp_sleef(d):
    """Sleef's xexpf (expf_u10) for a finite float32 d <= 0: q = rint(d *
    log2 e); s = d - q ln2 in two FMAs; u = 1 + s + s*s*P(s) in FMAs; u * 2**q;
    0 below -104."""
    if d[0] == 0:
        return (1, 0)
    if _less(d, _M104):
        return (0, 0)
    q = round_int(mul(d, _R_LN2))
    qf = round_f32(q, 0)
    s = fma(qf, _L2U, d)
    s = fma(qf, _L2L, s)
    u = _C0
    for c in _POLY:
        u = fma(u, s, c)
    u = add((1, 0), fma(mul(s, s), u, s))
    return round_f32(u[0], u[1] + q)


# glibc's expf (sysdeps/ieee754/flt-32/e_expf.c, data from e_exp2f_data.c):
# doubles as (53-bit mantissa, exponent). 2**(i/32) for i in 0..31:
_TAB = (
    0x10000000000000, 0x1059B0D3158574, 0x10B5586CF9890F, 0x111301D0125B51,
    0x1172B83C7D517B, 0x11D4873168B9AA, 0x12387A6E756238, 0x129E9DF51FDEE1,
    0x1306FE0A31B715, 0x1371A7373AA9CB, 0x13DEA64C123422, 0x144E086061892D,
    0x14BFDAD5362A27, 0x15342B569D4F82, 0x15AB07DD485429, 0x16247EB03A5585,
    0x16A09E667F3BCD, 0x171F75E8EC5F74, 0x17A11473EB0187, 0x182589994CCE13,
    0x18ACE5422AA0DB, 0x193737B0CDC5E5, 0x19C49182A3F090, 0x1A5503B23E255D,
    0x1AE89F995AD3AD, 0x1B7F76F2FB5E47, 0x1C199BDD85529C, 0x1CB720DCEF9069,
    0x1D5818DCFBA487, 0x1DFC97337B9B5F, 0x1EA4AFA2A490DA, 0x1F50765B6E4540,
)  # fmt: skip
_INV_LN2_32 = (0x171547652B82FE, -47)  # 32 / ln 2
_G0 = (0x1C6AF84B912394, -72)  # polynomial in r, scaled by 32**-3, -2, -1
_G1 = (0x1EBFCE50FAC4F3, -65)
_G2 = (0x162E42FF0C52D6, -58)
_UFLOW = decode(0xC2CFF1B4)  # -0x1.9fe368p6: below, glibc returns 0


def _bits(a):
    n = 0
    while a >> (n + 16):
        n += 16
    while a >> n:
        n += 1
    return n


def _f64(m, e):
    """The double nearest m * 2**e (normal range, ties to even)."""
    a = -m if m < 0 else m
    sh = _bits(a) - 53
    if sh <= 0:
        return (m, e)
    q = a >> sh
    r = a - (q << sh)
    h = 1 << (sh - 1)
    if r > h or (r == h and q & 1):
        q += 1
    return (-q if m < 0 else q, e + sh)


def _fma64(x, y, z):
    """x * y + z in doubles, one rounding."""
    m, e = x[0] * y[0], x[1] + y[1]
    zm, ze = z
    if zm == 0:
        return _f64(m, e)
    if e < ze:
        return _f64((zm << (ze - e)) + m, e)
    return _f64((m << (e - ze)) + zm, ze)


def exp_glibc(x):
    """glibc's expf (FMA build) for a finite float32 x <= 0: z = x * 32/ln2,
    k = rint(z), r = z - k, 2**(k/32) from the table, a cubic in r with FMAs,
    rounded to float32; 0 below log(2**-150)."""
    if x[0] == 0:
        return (1, 0)
    if _less(x, _UFLOW):
        return (0, 0)
    z = _f64(x[0] * _INV_LN2_32[0], x[1] + _INV_LN2_32[1])
    k = round_int(z)  # |z| < 2**13: the shift trick's rint
    r = _f64(z[0] - (k << -z[1]), z[1]) if z[1] < 0 else (0, 0)  # exact
    p = _fma64(_G0, r, _G1)
    r2 = _f64(r[0] * r[0], 2 * r[1])
    y = _fma64(_G2, r, (1, 0))
    y = _fma64(p, r2, y)
    y = _f64(y[0] * _TAB[k & 31], y[1] - 52 + (k >> 5))
    return round_f32(y[0], y[1])

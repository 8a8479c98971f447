"""The float loops of the bytecode products: mm, addmm, bmm and the
convolutions sum rows into lists of Python floats (accumulate,
accumulate_rows) and leave their scratch lists holding the shared 0.0
(release). Imported only by float kernels, so an int8 program does not pay
for them (or their native copies) in RAM.
"""

from portable_kernels.util.emitters import HAS_NATIVE


def release(scratch):
    """Point every slot of a float scratch list at the shared constant 0.0.

    Called at the end of a step: boxed floats left in a scratch list stay
    alive between inferences, scattered over the heap, and fragment it (on a
    220 KB board the example CNN's 28 KB of survivors left no free run longer
    than 432 bytes with 111 KB free). Does not allocate.
    """
    for i in range(len(scratch)):
        scratch[i] = 0.0


def accumulate(a, ai, b, bi, k, n, acc):
    """acc[j] += sum over kk < k of a[ai + kk] * b[bi + kk * n + j], for j < n.

    The row-times-matrix loop of mm, addmm, bmm and 1x1 convolution, called
    by their steps once per output row: k-outer, four rows of b per pass, so
    each element of b is read once and the sums stay Python floats in acc.
    Allocation: boxed floats only.
    """
    n2 = 2 * n
    n3 = 3 * n
    n4 = 4 * n
    k4 = k - k % 4
    for kk in range(ai, ai + k4, 4):
        a0 = a[kk]
        a1 = a[kk + 1]
        a2 = a[kk + 2]
        a3 = a[kk + 3]
        j = 0
        for q in range(bi, bi + n):
            acc[j] += a0 * b[q] + a1 * b[q + n] + a2 * b[q + n2] + a3 * b[q + n3]
            j += 1
        bi += n4
    for kk in range(ai + k4, ai + k):
        a0 = a[kk]
        j = 0
        for q in range(bi, bi + n):
            acc[j] += a0 * b[q]
            j += 1
        bi += n


def accumulate_rows(a, ai, rows, b, bi, k, n, acc, bs):
    """acc[r * n + j] += sum over kk < k of a[ai + r * k + kk] * b[bi + kk * n + j],
    for r < rows and j < n.

    accumulate for `rows` rows of a at once: each pass copies four rows of b
    into the list bs (4 * n slots), so an element of b is boxed once for all
    the rows instead of once per row. Same terms in the same order as
    accumulate (four per expression, then the k % 4 left over one at a
    time): the sums are bit-identical. Allocation: boxed floats only.
    """
    n2 = 2 * n
    n3 = 3 * n
    n4 = 4 * n
    k4 = k - k % 4
    for kk in range(0, k4, 4):
        q = bi
        for j in range(n4):
            bs[j] = b[q]
            q += 1
        bi += n4
        ar = ai + kk
        p = 0
        for _ in range(rows):
            a0 = a[ar]
            a1 = a[ar + 1]
            a2 = a[ar + 2]
            a3 = a[ar + 3]
            for j in range(n):
                acc[p] += a0 * bs[j] + a1 * bs[j + n] + a2 * bs[j + n2] + a3 * bs[j + n3]
                p += 1
            ar += k
    for kk in range(k4, k):
        q = bi
        for j in range(n):
            bs[j] = b[q]
            q += 1
        bi += n
        ar = ai + kk
        p = 0
        for _ in range(rows):
            a0 = a[ar]
            for j in range(n):
                acc[p] += a0 * bs[j]
                p += 1
            ar += k


# -- integer results wrap as torch's fixed-width integers ----------------------


if HAS_NATIVE:  # the same functions compiled by the native emitter (host_tools/codegen/native_variants.py)
    from portable_kernels.util.float_loops_native import accumulate, accumulate_rows, release  # noqa: E402, F401, F811

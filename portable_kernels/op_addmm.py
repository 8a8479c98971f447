"""aten::addmm.out: beta * self + alpha * (mat1 @ mat2), self broadcast to
[M, N] ([N], [1, N], [M, 1], [M, N] or a single element). Float only.

beta == 0 ignores self entirely (NaN included), as torch does.
"""

from portable_kernels.op_mm import _FLOATS, check_mm, row_block, viper_step
from portable_kernels.util import checks, loops, scratch


def addmm_out(bias, a, b, beta, alpha, out):
    m, k, n = check_mm(a, b, out, "addmm")
    checks.is_tensor(bias, "addmm self")
    checks.dtype_in(bias, _FLOATS, "addmm self")
    checks.same_dtype(bias, out)
    checks.number(beta, "addmm beta")
    checks.number(alpha, "addmm alpha")
    if len(bias.sizes) > 2 or loops.broadcast_shape(tuple(bias.sizes), (m, n), "addmm self") != (m, n):
        checks.fail("addmm: self %s does not broadcast to the result [%d, %d]" % (checks.shape_str(bias), m, n))
    sm, sn = loops.operand_strides(bias.sizes, (m, n))
    if beta == 0:
        bias_data, sm, sn, beta = None, 0, 0, 0.0
    else:
        bias_data = bias.data
    args = (bias_data, sm, sn, beta, alpha, a.data, b.data, out.data, m, k, n)
    if alpha != 1 or beta not in (0, 1):  # the viper product sums bias * 1.0 and a @ b
        return _bytecode(*args)
    return viper_step(a, b, out, None if bias_data is None else bias, (1, m, k, n, 0, int(beta == 1), sm, sn), _bytecode, args)


def _bytecode(bias, sm, sn, beta, alpha, a, b, o, m, k, n):
    """(step, ctx) of the bytecode addmm on the data views."""
    _float_loops()
    head = (bias, sm, sn, beta, alpha, a, b, o, m, k, n)
    rows = row_block(m, n)
    if rows:
        return _addmm_rows, head + (scratch.floats(rows * n, "mm acc"), scratch.floats(4 * n, "mm b rows"), rows)
    return _addmm, head + (scratch.floats(n, "mm acc"),)


def _addmm(ctx):
    bias, sm, sn, beta, alpha, a, b, o, m, k, n, acc = ctx
    oi = 0
    bi = 0
    for i in range(m):
        for j in range(n):
            acc[j] = 0.0
        accumulate(a, i * k, b, 0, k, n, acc)
        if bias is None:
            for j in range(n):
                o[oi] = alpha * acc[j]
                oi += 1
        elif beta == 1 and alpha == 1:
            q = bi
            for j in range(n):
                o[oi] = bias[q] + acc[j]
                q += sn
                oi += 1
        else:
            q = bi
            for j in range(n):
                o[oi] = beta * bias[q] + alpha * acc[j]
                q += sn
                oi += 1
        bi += sm
    release(acc)


def _addmm_rows(ctx):
    """_addmm over blocks of `block` rows (float_loops.accumulate_rows)."""
    bias, sm, sn, beta, alpha, a, b, o, m, k, n, acc, bs, block = ctx
    oi = 0
    bi = 0
    i = 0
    while i < m:
        rows = m - i if m - i < block else block
        for j in range(rows * n):
            acc[j] = 0.0
        accumulate_rows(a, i * k, rows, b, 0, k, n, acc, bs)
        p = 0
        for _ in range(rows):
            if bias is None:
                for _ in range(n):
                    o[oi] = alpha * acc[p]
                    p += 1
                    oi += 1
            elif beta == 1 and alpha == 1:
                q = bi
                for _ in range(n):
                    o[oi] = bias[q] + acc[p]
                    q += sn
                    p += 1
                    oi += 1
            else:
                q = bi
                for _ in range(n):
                    o[oi] = beta * bias[q] + alpha * acc[p]
                    q += sn
                    p += 1
                    oi += 1
            bi += sm
        i += rows
    release(acc)
    release(bs)


def _float_loops():
    """op_mm.float_loops() for this module's steps."""
    global accumulate, accumulate_rows, release
    from portable_kernels.util.float_loops import accumulate, accumulate_rows, release

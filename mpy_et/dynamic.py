"""Bounded dynamic shapes (ExecuTorch's TensorShapeDynamism.DYNAMIC_BOUND).

A program marks the tensors whose shapes depend on an input's dynamic dims
DYNAMIC_BOUND; their sizes in the program are the upper bound, which is what
the memory plan holds. Method.set_input with a smaller shape calls
Dynamic.resize: it checks the new shape against the bound, then walks the
instructions that touch dynamic tensors in order, computes each one's out
shapes from its inputs (the shape functions below), resizes the out tensors
in place (same storage, a new typed view) and prepares again, by calling its
kernel as at load, only the instructions one of whose tensors changed shape.
All of this happens in set_input (it allocates: new views and contexts);
execute() still only walks the (step, ctx) lists. ExecuTorch's kernels
resize their outputs inside execute() instead; the results are the same.

Imported only by methods that have a dynamic tensor.
"""

from mpy_et import schema as S
from mpy_et.errors import INVALID_ARGUMENT, NOT_SUPPORTED, MpyEtError
from mpy_et.flatbuf import FlatReader
from mpy_et.tensor import Tensor, typed_view

_SYM_SIZE = "aten::sym_size.int"


class Dynamic:
    """The dynamic tensors of one method (tensor -> its bound sizes), the
    instructions to prepare again: [step index, instruction, op, kernel,
    shape function, values, sizes], and the current value of each
    aten::sym_size result (value index -> int). `sizes`: a sym_size's value
    index, or the size lists of a call that refer to sym_size results,
    [(argument position, their value indices, the list as loaded)], or None."""

    def __init__(self):
        self.bounds = {}
        self.calls = []
        self.ints = {}
        # Why the shapes do not fit together yet (one of several dynamic inputs
        # resized before the others, e.g. a shared batch dim), or None; execute() refuses to run then.
        self.stale = None

    def add(self, t):
        self.bounds[t] = t.sizes

    def resized(self):
        """True when a dynamic tensor is below its bound."""
        for t in self.bounds:
            if t.sizes != self.bounds[t]:
                return True
        return False

    def note(self, j, i, name, kernel, vals, args, method):
        """Keep instruction i (step j; -1: no step; args: its value indices)
        if one of its values is dynamic (method: loading, for size lists)."""
        if not _touches(vals, self.bounds):
            return
        fn = shape_function(name)
        if fn is None:
            raise MpyEtError(
                NOT_SUPPORTED,
                "instruction %d (%s): its tensors have dynamic shapes and mpy_et has no shape function for it "
                "(dynamic dims work through: %s)" % (i, name, ", ".join(supported())),
            )
        sizes = None
        if name == _SYM_SIZE:
            sizes = args[2]
            self.ints[sizes] = vals[0].sizes[vals[1] % len(vals[0].sizes)]
        elif self.ints:
            sizes = _sym_lists(self.ints, vals, args, method)
        self.calls.append([j, i, name, kernel, fn, vals, sizes])

    def resize(self, method, index, t, sizes):
        """Resize input `index` (tensor t) to `sizes` and every tensor that
        depends on it; prepare again the steps whose tensors changed."""
        bound = self.bounds.get(t)
        sizes = tuple(sizes)
        if bound is None:
            if sizes != tuple(t.sizes):
                raise MpyEtError(INVALID_ARGUMENT, "input %d has the static shape %s, got %s" % (index, list(t.sizes), list(sizes)))
            return False
        if sizes == t.sizes and self.stale is None:  # the shape it has (within the bound): nothing to do
            return False
        if len(sizes) != len(bound):
            raise MpyEtError(INVALID_ARGUMENT, "input %d has %d dims (bound %s), got %s" % (index, len(bound), list(bound), list(sizes)))
        for d in range(len(sizes)):
            if sizes[d] < 0 or sizes[d] > bound[d]:
                raise MpyEtError(
                    INVALID_ARGUMENT,
                    "input %d dim %d is %d; the program's bound for it is %d (shape %s, bound %s)"
                    % (index, d, sizes[d], bound[d], list(sizes), list(bound)),
                )
        old = t.sizes
        try:
            self._propagate(method, index, t, sizes, self.stale is not None)
        except MpyEtError as e:
            n = 0
            for x in method._inputs:
                n += x in self.bounds
            if n > 1:  # another dynamic input may not have its new shape yet: execute() waits for it
                self.stale = e.message
                return True
            self._propagate(method, index, t, old, True)  # a kernel refused the new shape: back to the old one, consistent
            raise
        self.stale = None
        return True

    def _propagate(self, method, index, t, sizes, full):
        """Resize from t on (every call when `full`: after a stale resize)."""
        changed = {t: True}
        _set(t, sizes)
        steps, ctxs = method._steps, method._ctxs
        for call in self.calls:  # plain loops: no generator per call (a board's set_input time)
            j, i, name, kernel, fn, vals, sizes = call
            if sizes is None and not full and not _touches(vals, changed):
                continue
            if name == _SYM_SIZE:
                self.ints[sizes] = vals[0].sizes[vals[1] % len(vals[0].sizes)]
                continue
            if sizes is not None:  # size lists with sym_size results: their current values
                for p, items, loaded in sizes:
                    vals[p] = tuple(self.ints[k] if k in self.ints else loaded[q] for q, k in enumerate(items))
            try:
                shapes = fn(vals)
                k = len(vals) - len(shapes)
                for want in shapes:
                    out = vals[k]
                    k += 1
                    if type(want) is not tuple:
                        want = tuple(want)
                    if want != out.sizes:
                        self._check_bound(out, want)
                        _set(out, want)
                        changed[out] = True
                step = kernel(*vals)
            except MpyEtError as e:
                raise MpyEtError(e.code, "resizing input %d: instruction %d (%s): %s" % (index, i, name, e.message))
            if step is None:
                if j >= 0:
                    raise MpyEtError(NOT_SUPPORTED, "resizing input %d: instruction %d (%s) has no step at this size" % (index, i, name))
            elif j < 0:
                raise MpyEtError(NOT_SUPPORTED, "resizing input %d: instruction %d (%s) had no step at load" % (index, i, name))
            else:
                steps[j], ctxs[j] = step

    def _check_bound(self, out, want):
        bound = self.bounds.get(out)
        if bound is None:
            raise MpyEtError(
                INVALID_ARGUMENT, "its out tensor is static %s but would be %s at this input shape" % (list(out.sizes), list(want))
            )
        over = len(want) != len(bound)
        for d in range(0 if over else len(want)):
            over = over or want[d] > bound[d]
        if over:
            raise MpyEtError(INVALID_ARGUMENT, "out shape %s exceeds the planned bound %s" % (list(want), list(bound)))


def _touches(vals, tensors):
    """True when a value, or a tensor in a tensor list, is a key of `tensors`."""
    for v in vals:
        if isinstance(v, Tensor):
            if v in tensors:
                return True
        elif isinstance(v, list):  # a TensorList (Optional: None items)
            for u in v:
                if u is not None and u in tensors:
                    return True
    return False


def _sym_lists(ints, vals, args, method):
    """[(position, item value indices, loaded tuple)] of the call's int lists
    that refer to sym_size results, or None."""
    r = method.program.reader
    out = None
    for p in range(len(vals)):
        if isinstance(vals[p], tuple):
            ev = r.table_at(method._values_start, args[p], "value")
            if r.scalar(ev, S.EVALUE_VAL_TYPE, FlatReader.u8, 0, "value") != S.KERNEL_TYPES_INT_LIST:
                continue
            s, k = r.vector(r.subtable(ev, S.EVALUE_VAL, "value"), S.INT_LIST_ITEMS, 8, "value")
            items = r.ints(s, k, "q")
            for k in items:
                if k in ints:
                    out = out or []
                    out.append((p, items, vals[p]))
                    break
    return out


def shape_of(data):
    """The shape of set_input's data when it carries one (a Tensor or nested
    lists), else None (bytes, arrays: the input keeps its shape). Also
    Dynamic.shape_of (no import statement per set_input)."""
    if isinstance(data, Tensor):
        return data.sizes
    if isinstance(data, (list, tuple)):
        shape = []
        while isinstance(data, (list, tuple)):
            shape.append(len(data))
            if not data:
                break
            data = data[0]
        return shape
    return None


def _set(t, sizes):
    """Give t new sizes over the same storage (a new typed view)."""
    n = 1
    for d in sizes:
        n *= d
    t.sizes = sizes
    t.numel = n
    t.data = typed_view(t.buf, t.offset, n, t.dtype)


# -- shape functions: the values of a call (outs last) -> the out shapes --


def _same(v):
    return (v[0].sizes,)


def _broadcast(v):
    shape = ()
    for t in v[:-1]:
        if isinstance(t, Tensor):
            s = t.sizes
            n = max(len(shape), len(s))
            a = (1,) * (n - len(shape)) + tuple(shape)
            b = (1,) * (n - len(s)) + tuple(s)
            shape = tuple(a[k] if b[k] == 1 else b[k] for k in range(n))
    return (shape,)


def _pick(v, k):
    return v[k] if len(v) > 1 else v[0]


def _window(size, kernel, stride, pad, dil, ceil):
    """Output length of a convolution or pooling window (torch's formula)."""
    span = size + 2 * pad - dil * (kernel - 1) - 1
    if ceil:
        out = (span + stride - 1) // stride + 1
        if (out - 1) * stride >= size + pad:
            out -= 1
        return out
    return span // stride + 1


def _convolution(v):
    x, w, stride, pad, dil, transposed = v[0], v[1], v[3], v[4], v[5], v[6]
    if transposed:
        raise MpyEtError(NOT_SUPPORTED, "a transposed convolution with dynamic shapes")
    s = x.sizes
    out = [s[0], w.sizes[0]]
    for k in range(len(s) - 2):
        out.append(_window(s[2 + k], w.sizes[2 + k], _pick(stride, k), _pick(pad, k), _pick(dil, k), False))
    return (out,)


def _pool(v, dil, ceil):
    x, kernel, stride, pad = v[0], v[1], v[2], v[3]
    s = x.sizes
    n = len(kernel)
    out = list(s[: len(s) - n])
    for k in range(n):
        st = _pick(stride, k) if stride else _pick(kernel, k)
        d = _pick(dil, k) if dil else 1
        out.append(_window(s[len(s) - n + k], _pick(kernel, k), st, _pick(pad, k), d, ceil))
    return out


def _avg_pool2d(v):
    return (_pool(v, None, v[4]),)


def _max_pool2d_with_indices(v):
    out = _pool(v, v[4], v[5])
    return (out, out)


def _reduce(v):
    x, dims, keepdim = v[0], v[1], v[2]
    n = len(x.sizes)
    dims = range(n) if not dims else [d % n for d in dims]
    out = []
    for k in range(n):
        if k in dims:
            if keepdim:
                out.append(1)
        else:
            out.append(x.sizes[k])
    return (out,)


def _squeeze(v, dims):
    s = v[0].sizes
    n = len(s)
    dims = [d % n for d in dims]
    return ([s[k] for k in range(n) if not (k in dims and s[k] == 1)],)


def _unsqueeze(v):
    s = list(v[0].sizes)
    d = v[1] % (len(s) + 1)
    return (s[:d] + [1] + s[d:],)


def _view(v):
    size, numel = list(v[1]), v[0].numel
    known = 1
    for d in size:
        if d != -1:
            known *= d
    if -1 in size:
        size[size.index(-1)] = numel // known if known else 0
    return (size,)


def _permute(v):
    s = v[0].sizes
    n = len(s)
    return ([s[d % n] for d in v[1]],)


def _mm(v):
    return ((v[0].sizes[0], v[1].sizes[1]),)


def _addmm(v):
    return ((v[1].sizes[0], v[2].sizes[1]),)


def _bmm(v):
    return ((v[0].sizes[0], v[0].sizes[1], v[1].sizes[2]),)


def _no_tensor(v):
    return ()


def _squeeze_all(v):
    return _squeeze(v, range(len(v[0].sizes)))


def _squeeze_dim(v):
    return _squeeze(v, (v[1],))


def _squeeze_dims(v):
    return _squeeze(v, v[1])


_SHAPES = {
    "convolution.out": _convolution,
    "avg_pool2d.out": _avg_pool2d,
    "max_pool2d_with_indices.out": _max_pool2d_with_indices,
    "mean.out": _reduce,
    "sum.IntList_out": _reduce,
    "amax.out": _reduce,
    "amin.out": _reduce,
    "squeeze_copy.out": _squeeze_all,
    "squeeze_copy.dim_out": _squeeze_dim,
    "squeeze_copy.dims_out": _squeeze_dims,
    "unsqueeze_copy.out": _unsqueeze,
    "view_copy.out": _view,
    "permute_copy.out": _permute,
    "mm.out": _mm,
    "addmm.out": _addmm,
    "bmm.out": _bmm,
}
# One string each (not a dict entry per name): RAM on a board.
_SAME = (
    " relu.out sigmoid.out tanh.out hardtanh.out clamp.out clone.out alias_copy.out _to_copy.out _softmax.out"
    " _log_softmax.out gelu.out silu.out hardswish.out hardsigmoid.out leaky_relu.out elu.out exp.out neg.out abs.out"
    " sqrt.out rsqrt.out add.Scalar_out sub.Scalar_out mul.Scalar_out div.Scalar_out rsub.Scalar_out "
)
_BROADCAST = " add.out sub.out mul.out div.out maximum.out minimum.out where.self_out "


def shape_function(name):
    """The shape function of operator `name` (values of a call -> out shapes), or None."""
    if name == "executorch_prim::et_view.default":
        return _view
    if name == _SYM_SIZE:
        return _no_tensor
    if not name.startswith("aten::"):
        return None
    base = name[6:]
    fn = _SHAPES.get(base)
    if fn is None and " " not in base:
        key = " " + base + " "
        fn = _same if key in _SAME else _broadcast if key in _BROADCAST else None
    return fn


def supported():
    """The operators dynamic dims work through (for messages)."""
    return sorted(["aten::" + n for n in list(_SHAPES) + (_SAME + _BROADCAST).split()] + [_SYM_SIZE, "executorch_prim::et_view.default"])


Dynamic.shape_of = staticmethod(shape_of)

"""Lower a core-ATen ExportedProgram to a ProgramIR of out-variant kernel calls.

Passes, in graph order:
- constant folding: a node whose inputs are all constants (e.g. the transposed
  weight of a linear layer) is computed here and stored as a constant;
- views of contiguous tensors (view, squeeze, flatten, ...) become aliases:
  same storage, no instruction;
- scalar overloads: add.Tensor(x, 1.0) runs as add.Scalar_out, and
  sub.Tensor(1.0, x) as rsub.Scalar_out;
- every other op runs as its out variant with all schema arguments emitted
  (defaults included), outputs last, as ExecuTorch's emitter does.
"""

import operator

import torch

from host_tools.lowering import cond, dim_orders, dynamic, state
from host_tools.lowering import map as map_loop
from host_tools.lowering.ir import SCALAR_TYPES, Instruction, ProgramIR, TensorValue, tensor_bytes
from host_tools.lowering.nodes import Ref, UnsupportedOps, module_of, source_of, where  # noqa: F401  (re-exported)
from mpy_et.dtypes import INFO as RUNTIME_DTYPES

_aten = torch.ops.aten

VIEW_OPS = {
    _aten.view.default,
    _aten._unsafe_view.default,
    _aten.reshape.default,
    _aten.squeeze.default,
    _aten.squeeze.dim,
    _aten.squeeze.dims,
    _aten.unsqueeze.default,
    _aten.alias.default,
    _aten.detach.default,
    _aten.flatten.using_ints,
}

# Ops whose out variant is a *_copy op (ExecuTorch's edge dialect does the same).
COPY_VARIANTS = {
    _aten.permute.default: _aten.permute_copy.out,
    _aten.t.default: _aten.t_copy.out,
    _aten.transpose.int: _aten.transpose_copy.int_out,
    _aten.expand.default: _aten.expand_copy.out,
    _aten.slice.Tensor: _aten.slice_copy.Tensor_out,
    _aten.select.int: _aten.select_copy.int_out,
    _aten.split_with_sizes.default: _aten.split_with_sizes_copy.out,
    _aten.unbind.int: _aten.unbind_copy.int_out,
}

# Checks torch.export leaves in the graph (e.g. after .to(dtype)): they produce
# nothing and the static shapes and dtypes already hold, so they are dropped.
ASSERT_OPS = {
    getattr(getattr(_aten, name), overload)
    for name, overload in (("_assert_tensor_metadata", "default"), ("_assert_scalar", "default"), ("_assert_async", "msg"))
    if hasattr(_aten, name)
}

SCALAR_OVERLOADS = {
    _aten.add.Tensor: _aten.add.Scalar,
    _aten.sub.Tensor: _aten.sub.Scalar,
    _aten.mul.Tensor: _aten.mul.Scalar,
    _aten.div.Tensor: _aten.div.Scalar,
    _aten.div.Tensor_mode: _aten.div.Scalar_mode,
}

# Tensor options of factory-style ops: an out variant takes them from its out tensor.
_TENSOR_OPTIONS = ("dtype", "layout", "device", "pin_memory")


def out_variant(target):
    """The out-variant OpOverload for a functional core-ATen op, or None.

    Preferred names first (add.Tensor -> add.out, add.Scalar -> add.Scalar_out),
    then any overload taking the same arguments plus out tensors (sort.values).
    Tensor options (dtype, layout, device, pin_memory) are the out tensor's,
    so full_like.default matches full_like.out.
    """
    if target in COPY_VARIANTS:
        return COPY_VARIANTS[target]
    namespace, name = target._schema.name.split("::")
    packet = getattr(getattr(torch.ops, namespace), name)  # aten, or a custom operator's namespace
    overload = target._overloadname
    names = (("out",) if overload in ("default", "Tensor") else ()) + (overload + "_out", "out")
    # names and types: clamp.Tensor (Tensor? min) is clamp.Tensor_out, not clamp.out (Scalar? min)
    wanted = [(a.name, _base_type(a)) for a in target._schema.arguments if a.name not in _TENSOR_OPTIONS]
    candidates = [getattr(packet, n) for n in names if n in packet.overloads()]
    candidates += [getattr(packet, n) for n in packet.overloads() if n not in names]
    for cand in candidates:
        args = cand._schema.arguments
        if (
            any(a.is_out for a in args)
            and [(a.name, _base_type(a)) for a in args if not a.is_out and a.name not in _TENSOR_OPTIONS] == wanted
        ):
            return cand
    return None


def _base_type(arg):
    """A schema argument's type without Optional (index.Tensor_hacked_twin's
    Tensor[] matches index.Tensor_out's Tensor?[])."""
    return str(arg.type).replace("Optional[", "").replace("]", "")


def op_name(overload):
    s = overload._schema
    return "%s.%s" % (s.name, s.overload_name) if s.overload_name else s.name


class Lowering:
    def __init__(self, ep, supported, shared_state=()):
        self.ep = ep
        self.supported = supported
        self.shared_state = shared_state
        self.ir = ProgramIR()
        self.env = {}  # fx node -> Ref | torch.Tensor (constant) | tuple of those
        self.emitted_constants = {}  # id(constant tensor) -> value index
        self.unsupported = []

    def run(self):
        sig = self.ep.graph_signature
        try:
            mutable = state.mutated_buffers(self.ep, self.shared_state)
        except state.StateError as e:
            raise UnsupportedOps(str(e)) from e
        consts = dict(self.ep.state_dict)
        consts.update(self.ep.constants)
        lifted = {}
        lifted.update(sig.inputs_to_parameters)
        lifted.update(sig.inputs_to_buffers)
        lifted.update(sig.inputs_to_lifted_tensor_constants)
        for node in self.ep.graph.nodes:
            if node.op == "placeholder":
                if lifted.get(node.name) in mutable:
                    self.env[node] = self._state_tensor(node, lifted[node.name], consts[lifted[node.name]])
                elif node.name in lifted:
                    self.env[node] = consts[lifted[node.name]].detach()
                else:
                    ref = self._new_tensor(node.meta["val"], node.name)
                    self.env[node] = ref
                    self.ir.inputs.append(ref.index)
            elif node.op == "call_function":
                try:
                    self._call(node)
                except UnsupportedOps as e:  # e.g. a float16 tensor: say where it comes from
                    raise UnsupportedOps("%s\n  in %s" % (e, where(node))) from e
            elif node.op == "get_attr":  # a torch.cond branch (a GraphModule)
                self.env[node] = getattr(self.ep.graph_module, node.target)
            elif node.op == "output":
                self._outputs(node)
        if self.unsupported:
            lines = ["  %s in %s" % (name, src) for name, src in self.unsupported]
            names = sorted({name for name, _ in self.unsupported})
            raise UnsupportedOps(
                "%d unsupported operator(s) %s (the runtime has no kernel for them):\n%s" % (len(names), names, "\n".join(lines))
            )
        return self.ir

    def _state_tensor(self, node, fqn, value):
        """A mutable buffer: planned, alive across calls, starting at `value`."""
        ref = self._new_tensor(node.meta["val"], fqn)
        t = self.ir.tensor(ref.index)
        t.initial, t.fqn = tensor_bytes(value), fqn
        self.ir.state.append(ref.index)
        return ref

    def _outputs(self, node):
        """Method outputs, and for each buffer forward updated an
        aten::copy_(buffer, new value) at the end (ExecuTorch's write-back)."""
        try:
            roles = state.output_roles(self.ep, node.args[0])
        except state.StateError as e:
            raise UnsupportedOps(str(e)) from e
        by_fqn = {self.ir.tensor(i).fqn: i for i in self.ir.state}
        for role in roles:
            out = role[1]
            if out is None:  # a method returning None (e.g. a reset): a Null output, as ExecuTorch's emitter writes
                self.ir.outputs.append(self.ir.scalar("Null"))
                continue
            src = self._tensor_arg(self.env[out], out)
            if role[0] == "user":
                self.ir.outputs.append(src)
                continue
            dst = by_fqn[role[2]]
            if self.ir.storage_of(src) == dst:
                continue  # the buffer's own value: nothing changed
            args = [dst, src, self.ir.scalar("Bool", False), dst]
            self.ir.instructions.append(Instruction(state.COPY_OP, args, "state update of %s" % role[2]))

    def _new_tensor(self, val, name, constant=None, alias_of=None):
        code = SCALAR_TYPES.get(val.dtype)
        if code not in RUNTIME_DTYPES:
            raise UnsupportedOps("tensor %s has dtype %s, which the runtime does not support" % (name, val.dtype))
        sizes, dyn = dynamic.bound_sizes(val, name)
        t = TensorValue(code, sizes, name, constant, alias_of, dynamic=dyn)
        # channels-last is kept for static tensors only (a dynamic one is contiguous)
        t.dim_order = None if alias_of is not None or dyn else dim_orders.memory_order(val)
        return Ref(self.ir.add("Tensor", t))

    def _tensor_arg(self, v, node=None):
        """Value index of a tensor argument, emitting a constant on first use."""
        if isinstance(v, Ref):
            return v.index
        if isinstance(v, torch.Tensor):
            key = id(v)
            if key not in self.emitted_constants:
                data = tensor_bytes(v)
                name = getattr(node, "name", "constant")
                self.emitted_constants[key] = self._new_tensor(v, name, constant=data).index
            return self.emitted_constants[key]
        raise UnsupportedOps("expected a tensor, got %r" % (v,))

    def _call(self, node):
        target = node.target
        args = [self._resolve(a) for a in node.args]
        kwargs = {k: self._resolve(v) for k, v in node.kwargs.items()}
        if target is operator.getitem:
            self.env[node] = args[0][args[1]]
            return
        if target in ASSERT_OPS:
            return
        if target is dynamic.SYM_SIZE:  # a dynamic dim's size: only an argument the lowering refuses uses it
            self.env[node] = node.meta["val"]
            return
        if target is cond.COND:
            self.env[node] = cond.lower_cond(self, node, args)
            return
        if target is map_loop.MAP:
            self.env[node] = map_loop.lower_map(self, node, args)
            return
        if isinstance(node.meta.get("val"), torch.SymInt):  # arithmetic on a dynamic dim's size
            dynamic.refuse_symbolic(node.meta["val"], str(target))
        if not isinstance(target, torch._ops.OpOverload):
            self.unsupported.append((str(target), where(node)))
            return
        if not any(isinstance(x, Ref) for x in _flat(list(args) + list(kwargs.values()))):
            self.env[node] = target(*args, **kwargs)  # constant folding
            return
        if target in VIEW_OPS and self._dynamic(args[0], node):
            size = dynamic.view_size(node)
            if size is not None:  # ExecuTorch's et_view: an alias the device resizes
                x = self._tensor_arg(args[0])
                ref = self._new_tensor(node.meta["val"], node.name, alias_of=self.ir.storage_of(x))
                self.env[node] = ref
                ins = [x, self._emit(size, "List[int]"), ref.index]
                self.ir.instructions.append(Instruction(dynamic.ET_VIEW, ins, where(node)))
                return
            target, args = dynamic.as_copy(target, node, args)  # more than one dynamic dim: a copy
        elif target in VIEW_OPS:
            base = self.ir.storage_of(self._tensor_arg(args[0]))
            self.env[node] = self._new_tensor(node.meta["val"], node.name, alias_of=base)
            return
        if target in SCALAR_OVERLOADS and isinstance(args[1], (int, float, bool)):
            target = SCALAR_OVERLOADS[target]
        elif target is _aten.sub.Tensor and isinstance(args[0], (int, float, bool)):
            target, args = _aten.rsub.Scalar, [args[1], args[0]] + args[2:]  # 1 - x
        out_op = out_variant(target)
        name = op_name(out_op) if out_op is not None else op_name(target)
        vals = node.meta["val"]
        multi = isinstance(vals, (tuple, list))
        outs = vals if multi else (vals,)
        refs = [self._new_tensor(v, "%s_%d" % (node.name, i) if multi else node.name) for i, v in enumerate(outs)]
        self.env[node] = tuple(refs) if multi else refs[0]
        if out_op is None or name not in self.supported:
            self.unsupported.append((name, where(node)))
            return
        bound = dict(zip((a.name for a in target._schema.arguments), args))
        bound.update(kwargs)
        emitted, k = [], 0
        out_list = False
        for a in out_op._schema.arguments:
            if a.is_out and str(a.type).startswith("List"):  # Tensor(a!)[] out: all outs in one list
                emitted.append(self.ir.add("TensorList", [r.index for r in refs]))
                out_list = True
            elif a.is_out:
                emitted.append(refs[k].index)
                k += 1
            else:
                emitted.append(self._emit(bound.get(a.name, a.default_value), str(a.type)))
        # ExecuTorch's calling convention: the return value(s) follow the
        # arguments; an out variant returns its out tensor(s) (a list out is
        # passed again as a list of its own, as ExecuTorch's emitter does).
        single = len(refs) == 1 and not out_list
        emitted.append(refs[0].index if single else self.ir.add("TensorList", [r.index for r in refs]))
        self.ir.instructions.append(Instruction(name, emitted, where(node)))

    def _dynamic(self, x, node):
        t = self.ir.tensor(x.index) if isinstance(x, Ref) else None
        return (t is not None and t.dynamic and not t.filled) or dynamic.bound_sizes(node.meta["val"], node.name)[1]

    def _resolve(self, a):
        if isinstance(a, torch.fx.Node):
            return self.env[a]
        if isinstance(a, (list, tuple)):
            return type(a)(self._resolve(x) for x in a)
        return a

    def _emit(self, v, type_str):
        """Value index for one schema argument (scalars are deduplicated)."""
        ir = self.ir
        if v is None:
            return ir.scalar("Null")
        if isinstance(v, torch.SymInt) or (isinstance(v, (list, tuple)) and any(isinstance(x, torch.SymInt) for x in v)):
            dynamic.refuse_symbolic(v, type_str)
        if isinstance(v, (Ref, torch.Tensor)):
            return self._tensor_arg(v)
        if isinstance(v, bool):
            return ir.scalar("Bool", v)
        if isinstance(v, int):
            return ir.scalar("Double", float(v)) if type_str.startswith("float") else ir.scalar("Int", v)
        if isinstance(v, float):
            return ir.scalar("Double", v)
        if isinstance(v, torch.dtype):
            return ir.scalar("Int", SCALAR_TYPES[v])
        if isinstance(v, str):
            return ir.scalar("String", v)
        if isinstance(v, (torch.memory_format, torch.layout, torch.device)):
            return ir.scalar("Null")
        if isinstance(v, (list, tuple)):
            if "Tensor" in type_str:
                if "Optional[Tensor]" in type_str:
                    return ir.add("OptionalTensorList", [self._emit(x, "Tensor") for x in v])
                return ir.add("TensorList", [self._tensor_arg(x) for x in v])
            if "float" in type_str:
                return ir.add("DoubleList", [float(x) for x in v])
            if "bool" in type_str:
                return ir.add("BoolList", [bool(x) for x in v])
            return ir.add("IntList", [ir.scalar("Int", int(x)) for x in v])
        raise UnsupportedOps("cannot emit argument %r of schema type %s" % (v, type_str))


def _flat(items):
    for x in items:
        if isinstance(x, (list, tuple)):
            yield from _flat(x)
        else:
            yield x


def lower(ep, supported, shared_state=()):
    """Lower a core-ATen ExportedProgram to a ProgramIR.

    Args:
        ep: torch.export.ExportedProgram after run_decompositions().
        supported: set of operator names the runtime has kernels for.
        shared_state: names of buffers another method of the same program
            updates: they are state here too, even if this method only reads them.
    Raises:
        UnsupportedOps: listing every unsupported operator with its source line.
    """
    return Lowering(ep, supported, shared_state).run()

"""export(): PyTorch module -> .pte bytes (and file)."""

import torch

from host_tools import custom_kernels
from host_tools.lowering import dim_orders
from host_tools.lowering.fold_batch_norm import fold_batch_norm as fold_bn
from host_tools.lowering.lower import UnsupportedOps, lower
from host_tools.lowering.pool_pass import max_pool_without_indices
from host_tools.lowering.serialize import serialize
from host_tools.planning import memory_plan, views


def supported_ops():
    """Operator names the device runtime has kernels for (its registry)."""
    from portable_kernels.registry import KERNELS

    return set(KERNELS)


def capture(model, example_inputs, method=None, dynamic_shapes=None):
    """torch.export + core ATen decompositions; `method`: the name of another
    method of the model to capture instead of forward (ExecuTorch's patch_forward);
    `dynamic_shapes`: torch.export's, with an upper bound on every dynamic dim."""
    if isinstance(model, torch.nn.Module):
        model = model.eval()
    if method is None:
        return torch.export.export(model, tuple(example_inputs), dynamic_shapes=dynamic_shapes).run_decompositions()
    fn = getattr(type(model), method, None)
    if not callable(fn):
        raise ValueError("methods: the model (%s) has no method %r" % (type(model).__name__, method))
    model.forward = fn.__get__(model)  # torch.export captures forward
    try:
        return torch.export.export(model, tuple(example_inputs)).run_decompositions()
    finally:
        del model.forward


def export(
    model,
    example_inputs,
    path=None,
    *,
    alignment=16,
    segment_alignment=16,
    method_name="forward",
    preserve_inputs=False,
    pin=None,
    fold_batch_norm=True,
    quantize=None,
    calibration=None,
    report=None,
    quantized_io=False,
    methods=None,
    kernels=None,
    patch=None,
    delegate=None,
    dynamic_shapes=None,
):
    """Export a model to an ExecuTorch-compatible .pte.

    Buffers the model updates in place (`self.state.copy_(new)`,
    `self.count += 1`) become state: planned memory that keeps its value
    across execute() calls, starting from the buffer's value at export
    (Method.reset_state() goes back to it).

    Args:
        model: a torch.nn.Module (put in eval mode) whose forward takes tensors.
        example_inputs: tuple of example tensors; their shapes and dtypes are
            the program's (static) input shapes.
        path: also write the file here when given.
        alignment: alignment of each constant and of each planned tensor.
        segment_alignment: alignment of the constant segment in the file.
        method_name: name of the method in the program.
        preserve_inputs: keep the input tensors intact through execute(), so
            it can run again on the same inputs. By default later tensors
            reuse their bytes (a smaller arena; set the inputs before every
            execute(), as with ExecuTorch's own exporter).
        pin: place chosen tensors in other memory ids (one caller buffer
            each), e.g. {"inputs": 2, "largest:2": 2, "conv2d_1": 2}; see
            memory_plan.plan.
        fold_batch_norm: fold inference batch norms into the convolution or
            linear layer before them (host_tools.lowering.fold_batch_norm); False
            keeps them as _native_batch_norm_legit_no_training kernel calls.
        quantize: "int8": post-training quantization (host_tools/quantize/pt2e.py:
            PT2E with our Quantizer, fused into mpy_et_quant operators); the
            model may also be a GraphModule the user converted with PT2E.
        calibration: with quantize, a list of input tuples for the observers.
        report: with quantize, a dict filled with "fused" (the int8 operators)
            and "float_ops" (ops that stay float, with their source lines);
            with quantized_io also "io_quantization". Always (when given):
            "graph", the ExportedProgram that was lowered, and
            "instruction_nodes", per instruction the names of the graph
            nodes whose values it writes.
        quantized_io: with quantize="int8", the program's inputs and outputs
            are int8 (no float input or output in the arena); their scales and
            zero points are stored in the program (named data
            host_tools.quantize.io.NAMED_DATA_KEY: `mpy-et inspect` shows them,
            host_tools.run quantizes float inputs for it).
        methods: {name: example inputs} of further methods of the model to
            export into the same program (e.g. {"reset": ()}), each captured
            as ExecuTorch's patch_forward does. They share constants, and
            buffers any of them updates are one state, at the same place in
            every method (a memory id of its own, after pin's; the device
            shares a program's arenas among its methods). Not with quantize;
            report then describes method_name only.
        kernels: the device kernels of custom operators (torch.library ops
            with an .out variant): a .py file or module defining KERNELS =
            {"namespace::name.out": kernel} (host_tools/custom_kernels.py);
            the program is loaded with them to check it.
        patch: True, or a dict of options (host_tools/planning/patch.py:
            tiles, start, stop, max_extra_macs, instruction_bytes): run the
            first convolution stages band by band (patch-based inference:
            slices with halos, the same convolutions, each band written into
            the stage output in place) when that lowers the RAM (planned
            peak + heap of the added instructions); outputs are bit for bit
            the unpatched program's. With report, report["patch"] says what
            was patched, the peak and the MACs before and after.
        delegate: a backend of host_tools/delegates ("ulab") that takes the
            parts of the program it claims (DelegateCall instructions; see
            host_tools/delegates/__init__.py); with report, "delegated" lists
            the operators each call replaced.
        dynamic_shapes: torch.export's dynamic_shapes, each dynamic dim with
            an upper bound (e.g. ({2: torch.export.Dim("t", min=16, max=128)},)):
            memory is planned for the bounds; Method.set_input with a
            smaller shape resizes what depends on it (mpy_et/dynamic.py;
            host_tools/lowering/dynamic.py says what is refused). Not with
            quantize, patch, delegate or methods.
    Returns:
        The .pte file contents (bytes).
    Raises:
        host_tools.lowering.lower.UnsupportedOps: listing every unsupported operator
            with its module and source line; or naming the instruction, and
            the module and line it comes from, whose kernel rejects its
            arguments (e.g. a dtype it cannot do).
    """
    _, custom = custom_kernels.load(kernels)
    supported = supported_ops() | set(custom or ())
    lower_fn = lower
    named = {}
    if quantized_io and quantize is None:
        raise ValueError("quantized_io=True needs quantize='int8'")
    if quantize is not None:
        from host_tools.quantize.pt2e import capture_quantized

        report = {} if report is None else report
        # Calibration runs forward, which updates the model's buffers in place: keep their values as they were
        buffers = dict(model.named_buffers()) if isinstance(model, torch.nn.Module) else {}
        before = {name: b.detach().clone() for name, b in buffers.items()}
        ep, lower_fn = capture_quantized(model, example_inputs, quantize, calibration, report, quantized_io)
        _restore(buffers, before, ep)
        if quantized_io:
            from host_tools.quantize import io

            data = io.encode(report["io_quantization"])
            if data is not None:
                named[io.NAMED_DATA_KEY] = data
    else:
        ep = capture(model, example_inputs, dynamic_shapes=dynamic_shapes)
    if dynamic_shapes is not None and (quantize or patch or delegate or methods):
        raise ValueError("dynamic_shapes= is not supported with quantize, patch, delegate or methods")
    if methods and quantize is not None:
        raise ValueError("methods= (several methods in one program) is not supported with quantize")
    eps = {method_name: ep}
    for name, inputs in (methods or {}).items():
        if name in eps:
            raise ValueError("methods: %r is already the program's method_name" % name)
        eps[name] = capture(model, inputs, name)
    shared = set()
    for e in eps.values():
        shared.update(e.graph_signature.buffers_to_mutate.values())
    irs = []
    for name, e in eps.items():
        if fold_batch_norm and quantize is None:
            fold_bn(e)
        if dynamic_shapes is None:  # its reshapes take concrete sizes (they would make a dynamic dim static)
            max_pool_without_indices(e, supported)
        irs.append((name, lower_fn(e, supported, shared) if len(eps) > 1 else lower_fn(e, supported)))
    for _, m in irs:  # channels-last tensors stay so where their kernels take them (lowering/dim_orders.py)
        dim_orders.settle(m, keep=not patch and delegate is None)
    if dynamic_shapes is not None and not any(v.kind == "Tensor" and v.payload.dynamic for v in irs[0][1].values):
        raise UnsupportedOps("dynamic_shapes: no tensor of the lowered program has a dynamic dim (torch.export made them all static)")
    if patch:
        if len(irs) > 1:
            raise ValueError("patch= is for one method (not with methods=)")
        from host_tools.planning.patch import patch as patch_stages

        patched, info = patch_stages(irs[0][1], patch, alignment, preserve_inputs)
        irs[0] = (method_name, patched)
        if report is not None:
            report["patch"] = info
    if delegate is not None:  # delegation (host_tools/delegates): before planning
        from host_tools.delegates import delegate as delegate_to

        replaced = [delegate_to(m, delegate) for _, m in irs]
        if report is not None:
            report["delegated"] = replaced[0]
    for _, m in irs:  # copies of contiguous runs become views (planning/views.py)
        views.alias_views(m, alignment)
    ir = irs[0][1]
    if report is not None:  # for the numeric debugger (host_tools/devtools/debug.py)
        report["graph"] = ep
        report["instruction_nodes"] = [_node_names(ir, ins) for ins in ir.instructions]
    state = None
    if len(irs) > 1 and any(m.state for _, m in irs):
        layout, size = memory_plan.shared_state_layout([m for _, m in irs], alignment)
        state = (1 + max([1] + [v for v in (pin or {}).values() if isinstance(v, int)]), layout, size)
    for _, m in irs:
        memory_plan.plan(m, alignment, preserve_inputs, pin, shared_state=state)
    data = serialize(irs if len(irs) > 1 else ir, method_name, alignment, segment_alignment, named)
    for name, m in irs:
        _check_loads(data, m, name, custom)
    if path is not None:
        with open(path, "wb") as f:
            f.write(data)
    return data


def _restore(buffers, before, ep):
    """Put the model's buffers, and the exported program's copies of those
    that state (mutable buffers) starts from, back to their values `before`."""
    with torch.no_grad():
        for name, b in buffers.items():
            b.copy_(before[name])
        for name in ep.graph_signature.buffers_to_mutate.values():
            held = ep.state_dict.get(name, ep.constants.get(name))
            if name in before and held is not None and held.shape == before[name].shape:
                held.copy_(before[name])


def _node_names(ir, ins):
    """Graph node names of the tensors an instruction writes (its return slot:
    the out tensor, or the list of them)."""
    if ins.kind != "KernelCall":
        return []
    v = ir.values[ins.args[-1]]
    if v.kind == "Tensor":
        return [v.payload.name]
    if v.kind != "TensorList":  # an executorch_prim op's Int (a map loop's counter)
        return []
    return [ir.tensor(j).name for j in v.payload if ir.tensor(j) is not None]


def _check_loads(data, ir, method_name, kernels=None):
    """Load the program with the device runtime on this host, so that a
    kernel's load-time check that fails (a dtype or shape it cannot do) is
    reported at export, pointing at the user's module and line."""
    import re

    from mpy_et import MpyEtError, Program

    try:
        Program.load(data).load_method(method_name, kernels=kernels)
    except MpyEtError as e:
        m = re.match(r"instruction (\d+) \(", e.message)
        if m is None or int(m.group(1)) >= len(ir.instructions):
            raise
        raise UnsupportedOps("the runtime cannot run this program: %s\n  in %s" % (e, ir.instructions[int(m.group(1))].source)) from e

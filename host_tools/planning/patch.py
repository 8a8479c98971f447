"""Patch-based execution of the first convolution stages (MCUNetV2's
"patch-based inference"), as a rewrite of the lowered program.

A stage is a run of instructions (convolutions, pools, elementwise ops; see
patch_ops.py) whose intermediate tensors nothing after it reads. Patched,
it runs band by band: the stage output's rows are split into bands, and
for each band every instruction of the stage runs on just the rows the
band needs (its halo: the rows a window reaches beyond the band), read by
aten::slice_copy from the stage's input, then the band is written into the
stage output by aten::slice_scatter in place (self, out: one value). So
only one band's intermediates are alive at once, next to the stage's
whole input and output: the peak is no longer a full-size convolution
input plus its output. Rows of the halo are computed by two bands: the
extra MACs patch_macs reports.

Every op is a plain ExecuTorch operator or one the program already uses,
and each band computes exactly the values (and, for a convolution, the
same terms in the same order) the whole op computes for those rows, so
outputs are the unpatched program's, bit for bit.

patch() chooses the stage and the number of bands: the least RAM, counted
as the planned peak (lifetimes.lower_bound, which the planner reaches on
these graphs) plus an estimate of the heap each added instruction keeps
once loaded, among the choices whose extra MACs stay within a budget.
"""

import dataclasses

from host_tools.lowering.ir import ProgramIR, Value
from host_tools.planning import patch_ops
from host_tools.planning.lifetimes import buffers, lower_bound

DEFAULT_MAX_EXTRA_MACS = 0.25  # of the program's MACs
# Heap a loaded instruction keeps (its kernel's load-time context: index
# tables, views, row buffers). Each band adds instructions, so a patch also
# costs RAM beyond the arena: on the cortex-m3 board 0.5 to 1.1 KB per added
# instruction (benchmarks/bench_patch.py: lenet5, resnet8, mobilenet_v2_block
# int8). patch() weighs every added instruction at this estimate.
DEFAULT_INSTRUCTION_BYTES = 768
# The same for a stage of fp32 convolutions (aten::convolution): 252 to 417
# B per added instruction, the slice/pad/scatter kernels' imports included
# (runtime RAM beyond the arena loaded on cortex-m3-large, patched against
# unpatched: mobilenet_v1_025, resnet8, mobilenet_v2_block; benchmarks/patch.md).
FP32_INSTRUCTION_BYTES = 384
_BAND_COUNTS = (2, 3, 4, 6, 8, 12, 16, 24)
_SUB_ROWS = (1, 2)  # rows per sub-band of a stem convolution (rewrite's sub)


class PatchError(ValueError):
    """A patch= option the program cannot follow (no such stage, too many bands)."""


def _owner_uses(ir):
    """storage owner -> set of instruction indices that read or write it."""
    uses = {}
    for step, ins in enumerate(ir.instructions):
        for a in ins.args:
            v = ir.values[a]
            items = v.payload if v.kind in ("TensorList", "OptionalTensorList") else [a]
            for i in items:
                if ir.tensor(i) is not None:
                    uses.setdefault(ir.storage_of(i), set()).add(step)
    return uses


def stage_ops(ir, first, last, uses=None):
    """RowOps of instructions first..last if they form a stage, else None:
    each runs by bands, and only the last one's output is read after it."""
    uses = _owner_uses(ir) if uses is None else uses
    ops = []
    outs = set()
    for step in range(first, last + 1):
        ins = ir.instructions[step]
        op = patch_ops.row_op(ir, ins)
        if op is None or ir.tensor(ins.args[-1]).alias_of is not None:
            return None
        for pos, a in enumerate(ins.args[:-2]):  # tensors made inside are read as rows only
            if a in outs and pos not in op.rows:
                return None
        ops.append(op)
        outs.add(ins.args[-1])
    final = ir.instructions[last].args[-1]
    kept = {ir.storage_of(i) for i in list(ir.outputs) + list(ir.state) if ir.tensor(i) is not None}
    aliased = {ir.storage_of(i) for i, v in enumerate(ir.values) if v.kind == "Tensor" and v.payload.alias_of is not None}
    for o in outs - {final}:
        if o in kept or o in aliased or any(s < first or s > last for s in uses.get(o, ())):
            return None
    return ops


def bands_of(rows, count):
    """count bands of nearly equal height over rows."""
    edges = [round(i * rows / count) for i in range(count + 1)]
    return [(edges[i], edges[i + 1]) for i in range(count)]


def sub_bands(c, d, rows):
    """Rows [c, d) cut into sub-bands of `rows` rows (the last may be shorter)."""
    return [(i, min(i + rows, d)) for i in range(c, d, rows)]


def _band_op(new, ir, ins, op, c, d, held, band_out, label):
    """Append ins run on output rows [c, d) into band_out: a slice of the
    rows each row input needs (from the band tensor that holds them, or
    from the whole tensor), border padding, the op with H padding 0."""
    args = list(ins.args)
    own = False  # the op's own H padding is exactly the band's border
    for arg in op.rows:
        x = args[arg]
        a, b, top, bottom = patch_ops.input_rows(op, c, d, ir.tensor(x).sizes[2])
        src, (h0, h1) = held.get(x, (x, (0, ir.tensor(x).sizes[2])))
        name = "%s_%s" % (ir.tensor(x).name, label)
        if (a, b) != (h0, h1):
            step, src = patch_ops.slice_rows(new, src, a - h0, b - h0, name + "_rows")
            new.instructions.append(step)
        own = patch_ops.own_padding(op, c, d, a, b, top, bottom)
        if (top or bottom) and not own:
            step, src = patch_ops.pad_rows(new, src, top, bottom, op.pad_value, name + "_pad")
            new.instructions.append(step)
        args[arg] = src
    if op.padding_arg is not None and not own:
        pw = patch_ops.ints(ir, args[op.padding_arg])[1]
        args[op.padding_arg] = new.add("IntList", [new.scalar("Int", 0), new.scalar("Int", pw)])
    args[-2] = args[-1] = band_out
    new.instructions.append(dataclasses.replace(ins, args=args, source="%s [%s: rows %d..%d]" % (ins.source, label, c, d)))


def _band_tensor(new, t, rows, name):
    return new.add("Tensor", dataclasses.replace(t, sizes=(t.sizes[0], t.sizes[1], rows, t.sizes[3]), name=name))


def rewrite(ir, first, last, ops, bands, sub=None):
    """A new ProgramIR with instructions first..last run band by band (the
    values table is extended, not compacted: see compact()).

    sub: None, or rows per sub-band of the window ops that read only tensors
    from outside the stage (the stem convolution): inside each band such an
    op runs sub-band by sub-band, each reading just its own rows of the
    stage input and written into the band's tensor by slice_scatter in
    place, so the band's whole halo of the stage input is never copied out
    at once. The same rows are computed (no extra MACs), by more instructions.
    """
    new = ProgramIR(list(ir.values), list(ir.instructions[:first]), list(ir.inputs), list(ir.outputs), list(ir.state))
    new._interned = dict(ir._interned)
    stage = list(zip(ir.instructions[first : last + 1], ops))
    final = stage[-1][0].args[-1]
    made = {ins.args[-1] for ins, _ in stage}
    for band, (r0, r1) in enumerate(bands):
        need = {final: (r0, r1)}
        for pos in range(len(stage) - 1, -1, -1):  # rows each tensor must hold for this band
            ins, op = stage[pos]
            if ins.args[-1] not in need:
                continue  # nothing in the stage reads it
            c, d = need[ins.args[-1]]
            for arg in op.rows:
                x = ins.args[arg]
                a, b, _, _ = patch_ops.input_rows(op, c, d, ir.tensor(x).sizes[2])
                have = need.get(x)
                need[x] = (a, b) if have is None else (min(a, have[0]), max(b, have[1]))
        held = {}  # value -> (its band tensor, rows it holds)
        for ins, op in stage:
            out = ins.args[-1]
            if out not in need:
                continue
            c, d = need[out]
            t = ir.tensor(out)
            band_out = _band_tensor(new, t, d - c, "%s_b%d" % (t.name, band))
            outside = not any(ins.args[arg] in made for arg in op.rows)
            if sub and op.window is not None and outside and d - c > sub:
                for part, (e, f) in enumerate(sub_bands(c, d, sub)):
                    label = "b%ds%d" % (band, part)
                    part_out = _band_tensor(new, t, f - e, "%s_%s" % (t.name, label))
                    _band_op(new, ir, ins, op, e, f, held, part_out, label)
                    source = "patch: sub-band %d of band %d of %s" % (part, band, t.name)
                    new.instructions.append(patch_ops.scatter_rows(new, band_out, part_out, e - c, f - c, source))
            else:
                _band_op(new, ir, ins, op, c, d, held, band_out, "b%d" % band)
            held[out] = (band_out, (c, d))
        new.instructions.append(
            patch_ops.scatter_rows(new, final, held[final][0], r0, r1, "patch: band %d of %s" % (band, ir.tensor(final).name))
        )
    new.instructions.extend(ir.instructions[last + 1 :])
    return new


def ir_macs(ir):
    """MACs of the program's convolutions, 1-D or 2-D (output elements x terms each)."""
    total = 0
    for ins in ir.instructions:
        if ins.op == "aten::convolution.out":
            terms = _product(ir.tensor(ins.args[1]).sizes[1:])
        elif ins.op == "mpy_et_quant::conv2d_packed.out":
            groups = ir.values[ins.args[7]].payload
            terms = ir.tensor(ins.args[0]).sizes[1] // groups * _product(patch_ops.ints(ir, ins.args[3]))
        else:
            continue
        total += _product(ir.tensor(ins.args[-1]).sizes) * terms
    return total


def _product(sizes):
    n = 1
    for s in sizes:
        n *= s
    return n


def peak(ir, alignment=16, preserve_inputs=False):
    """The most bytes alive at one instruction: what a plan of ir needs at least."""
    return lower_bound(list(buffers(ir, preserve_inputs).values()), alignment)[0]


def candidates(ir, start=None, stop=None, tiles=None):
    """(first, last, ops, bands) of every stage starting at the first
    convolution or pool (or `start`), ending at `stop` or anywhere after,
    split into `tiles` bands or each of _BAND_COUNTS that fits."""
    uses = _owner_uses(ir)
    if start is None:
        start = next((i for i, ins in enumerate(ir.instructions) if (patch_ops.row_op(ir, ins) or patch_ops.RowOp([])).window), None)
        if start is None:
            return
    n = len(ir.instructions)
    for what, v in (("start", start), ("stop", stop)):
        if v is not None and not (isinstance(v, int) and 0 <= v < n):
            raise PatchError("patch: %s must be an instruction index below %d, got %r" % (what, n, v))
    ends = range(start, n) if stop is None else [stop] if stop >= start else []
    for last in ends:
        ops = stage_ops(ir, start, last, uses)
        if ops is None:
            if stop is None and patch_ops.row_op(ir, ir.instructions[last]) is None:
                return  # the stage cannot go past an op that does not run by bands
            continue
        rows = ir.tensor(ir.instructions[last].args[-1]).sizes[2]
        for count in [tiles] if tiles else [n for n in _BAND_COUNTS if n <= rows]:
            if count > rows:
                if stop is None:
                    continue
                raise PatchError("patch: %d bands for a stage output of %d rows" % (count, rows))
            yield start, last, ops, bands_of(rows, count)


def patch(ir, options=True, alignment=16, preserve_inputs=False):
    """Run the first stages of a CNN band by band when that lowers the peak.

    Args:
        ir: a lowered ProgramIR (not modified).
        options: True (choose everything), or a dict with any of "tiles"
            (number of bands), "start" / "stop" (instruction indices of the
            stage's first and last instruction), "sub" (rows per sub-band
            of the stage's first convolution, see rewrite(); 0: none;
            default: the best of none and _SUB_ROWS), "max_extra_macs" (extra
            MACs allowed, a fraction of the program's; default 0.25),
            "instruction_bytes" (heap counted per added instruction;
            default DEFAULT_INSTRUCTION_BYTES, FP32_INSTRUCTION_BYTES for a
            stage of fp32 convolutions; 0: the smallest arena).
        alignment, preserve_inputs: as the memory planner's.
    Returns:
        (ProgramIR, info): the patched program (or ir when no stage lowers
        the peak) and a dict: peak before and after, MACs before and after,
        the stage's instructions (op and output name), bands.
    """
    opts = {} if options is True else dict(options)
    known = ("tiles", "start", "stop", "sub", "max_extra_macs", "instruction_bytes")
    unknown = set(opts) - set(known)
    if unknown:
        raise PatchError("patch: unknown option(s) %s (%s)" % (sorted(unknown), ", ".join(known)))
    if any(getattr(ins, "kind", "KernelCall") != "KernelCall" for ins in ir.instructions):
        # bands would move the instructions a torch.cond's jumps point at
        raise PatchError("patch: programs with control flow (torch.cond) are not patched")
    budget = opts.get("max_extra_macs", DEFAULT_MAX_EXTRA_MACS)
    per_instruction = opts.get("instruction_bytes")
    macs, before = ir_macs(ir), peak(ir, alignment, preserve_inputs)
    best = None
    subs = (None,) + _SUB_ROWS if opts.get("sub") is None else (opts["sub"] or None,)
    if any(s is not None and (not isinstance(s, int) or isinstance(s, bool) or s < 1) for s in subs):
        raise PatchError("patch: sub must be a number of rows >= 1 (0: no sub-bands), got %r" % opts["sub"])
    for first, last, ops, bands in candidates(ir, opts.get("start"), opts.get("stop"), opts.get("tiles")):
        for sub in subs:
            new = rewrite(ir, first, last, ops, bands, sub)
            extra = ir_macs(new) - macs
            if extra > budget * macs:
                break  # the same MACs with sub-bands
            after = peak(new, alignment, preserve_inputs)
            each = _instruction_bytes(ir, first, last) if per_instruction is None else per_instruction
            key = (after + each * (len(new.instructions) - len(ir.instructions)), after, extra)
            if best is None or key < best[0]:
                best = (key, new, first, last, bands, sub)
    info = {"peak_before": before, "macs_before": macs, "patched": False}
    forced = any(k in opts for k in ("tiles", "start", "stop"))  # patched as asked, even if it saves nothing
    if best is None and forced:
        raise PatchError("patch: no stage fits %r (every instruction of a stage must run by bands; see planning/patch_ops.py)" % opts)
    if best is None or (best[0][0] >= before and not forced):
        info.update(peak_after=before, macs_after=macs)
        return ir, info
    (_, after, extra), new, first, last, bands, sub = best
    stage = [(ins.op, ir.tensor(ins.args[-1]).name) for ins in ir.instructions[first : last + 1]]
    info.update(patched=True, peak_after=after, macs_after=macs + extra, stage=stage, bands=bands, first=first, last=last, sub=sub)
    return compact(new), info


def _instruction_bytes(ir, first, last):
    """The heap estimate per added instruction for the stage first..last."""
    fp32 = any(ir.instructions[k].op.startswith("aten::convolution") for k in range(first, last + 1))
    return FP32_INSTRUCTION_BYTES if fp32 else DEFAULT_INSTRUCTION_BYTES


_INDEX_LISTS = ("IntList", "TensorList", "OptionalTensorList")


def compact(ir):
    """The program without the values no instruction, input, output or
    state refers to (the tensors of the instructions a rewrite replaced)."""
    keep = set()

    def mark(i):
        if i in keep:
            return
        keep.add(i)
        v = ir.values[i]
        if v.kind in _INDEX_LISTS:
            for j in v.payload:
                mark(j)
        elif v.kind == "Tensor" and v.payload.alias_of is not None:
            mark(v.payload.alias_of)

    for ins in ir.instructions:
        for a in ins.args:
            mark(a)
    for i in list(ir.inputs) + list(ir.outputs) + list(ir.state):
        mark(i)
    order = sorted(keep)
    new_index = {old: new for new, old in enumerate(order)}
    out = ProgramIR(inputs=[new_index[i] for i in ir.inputs], outputs=[new_index[i] for i in ir.outputs])
    out.state = [new_index[i] for i in ir.state]
    for old in order:
        v = ir.values[old]
        if v.kind in _INDEX_LISTS:
            v = Value(v.kind, [new_index[j] for j in v.payload])
        elif v.kind == "Tensor":
            t = v.payload
            v = Value("Tensor", dataclasses.replace(t, alias_of=None if t.alias_of is None else new_index[t.alias_of]))
        out.values.append(v)
    out.instructions = [dataclasses.replace(ins, args=[new_index[a] for a in ins.args]) for ins in ir.instructions]
    out._interned = {k: new_index[i] for k, i in ir._interned.items() if i in new_index}
    return out

"""Patch-based execution of the first stages (export(patch=True)) over the
conv zoo models: planned arena unpatched vs patched, the extra MACs of the
halos, and on the emulated 224 KB board (`cortex-m3`, instruction counts:
-icount shift=0) whether each int8 program loads and runs, its instructions
per inference, and whether the patched program's outputs equal the
unpatched one's bit for bit. A program that does not load on cortex-m3 runs
on cortex-m3-large (the same firmware and CPU, a larger heap) for its
instruction count and outputs. fp32: arena and MACs, and the two programs
run in ExecuTorch's runtime here, compared bit for bit; --fp32-board also
tries them on the board (a bytecode fp32 convolution takes ~1,500
instructions per MAC there: minutes per run when one loads).

int8 programs have int8 inputs and outputs (quantized_io=True), calibrated
with 16 seeded random batches. Prints a markdown table; not a pass/fail test.

    python benchmarks/bench_patch.py [MODEL ...] [--target cortex-m3] [--no-board | --fp32-board]
        [--precision int8|fp32] [--no-large]
"""

import argparse
import sys

import torch

from host_tools import export, run
from host_tools.targets import TargetError
from host_tools.zoo import build

CONV_MODELS = ("mobilenet_v2_block", "mobilenet_v1_025", "ds_cnn", "resnet8", "lenet5", "conv_autoencoder", "imu_cnn1d")
LARGE = {"cortex-m3": "cortex-m3-large"}  # where a program too big for the board still runs
BOARD_HEAP = "224 KB"


def _calibration(inputs, n=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [tuple(torch.randn(t.shape, generator=g) for t in inputs) for _ in range(n)]


# patch= options per variant: "ram" is the default choice (arena plus the
# heap of added instructions); "arena" the smallest arena within the MAC
# budget; "bands" the same without sub-bands of the stem (fewer instructions)
VARIANTS = {"ram": True, "arena": {"instruction_bytes": 0}, "bands": {"instruction_bytes": 0, "sub": 0}}


def _programs(name, precision):
    """(unpatched pte, {variant: (patched pte, report['patch'])}, inputs)."""
    model, inputs = build(name)
    inputs = tuple(inputs)
    kw = dict(quantize="int8", calibration=_calibration(inputs), quantized_io=True) if precision == "int8" else {}
    plain = export(model, inputs, **kw)
    patched = {}
    for variant, options in VARIANTS.items():
        report = {}
        patched[variant] = (export(model, inputs, patch=options, report=report, **kw), report["patch"])
    return plain, patched, inputs


def _board(pte, inputs, target, timeout):
    try:
        res = run(pte, inputs, target, repeat=1, timeout=timeout)
    except TargetError as e:
        lines = [ln.strip() for ln in str(e).splitlines() if "Error" in ln] or [type(e).__name__]
        return None, lines[-1][:100]
    return res, None


def _executorch_same(plain, patched, inputs):
    from executorch.runtime import Runtime

    a = Runtime.get().load_program(plain).load_method("forward").execute(list(inputs))
    b = Runtime.get().load_program(patched).load_method("forward").execute(list(inputs))
    return all(torch.equal(x, y) for x, y in zip(a, b))


_RUNS = {}  # (pte bytes, target) -> result: a variant whose program equals another's is not run again


def _on_board(pte, inputs, target, timeout, large=True):
    key = (bytes(pte), target, large)
    if key not in _RUNS:
        _RUNS[key] = _on_board_once(pte, inputs, target, timeout, large)
    return _RUNS[key]


def _on_board_once(pte, inputs, target, timeout, large):
    res, err = _board(pte, inputs, target, timeout)
    if res is None:
        if target not in LARGE or not large:
            return {"error": err}
        res, _ = _board(pte, inputs, LARGE[target], timeout)
        if res is None:
            return {"error": err}
        return {"error": err, "instructions": res.stats["execute_instructions"], "outputs": res.outputs, "on": LARGE[target]}
    s = res.stats
    beyond = s["heap_free_before_load"] - s["heap_free_after_load"] - s["arena_bytes"]
    return {"instructions": s["execute_instructions"], "outputs": res.outputs, "free": s["heap_free_after_load"], "beyond": beyond}


def _close(a, b, tol=1e-5):
    return all(x.shape == y.shape and torch.allclose(x.float(), y.float(), rtol=0, atol=tol) for x, y in zip(a, b))


def measure(name, precision, target, board, timeout, large=True):
    """One row per variant of the model at this precision."""
    from host_tools.analysis.inspect_pte import inspect

    plain, patched, inputs = _programs(name, precision)
    arena = inspect(plain)["planned_bytes"]
    plain_run = _on_board(plain, inputs, target, timeout, large) if board and (precision == "int8" or board == "fp32") else None
    reference = run(plain, inputs, "cpython", repeat=1).outputs if plain_run is not None and precision == "fp32" else None
    rows = []
    for variant, (pte, info) in patched.items():
        row = {"model": name, "precision": precision, "variant": variant, "info": info, "arena": arena}
        row["arena_patched"] = inspect(pte)["planned_bytes"]
        rows.append(row)
        if precision == "fp32":
            row["same"] = _executorch_same(plain, pte, inputs) if info["patched"] else None
        if plain_run is None:
            continue
        row["plain"] = plain_run
        row["patched"] = _on_board(pte, inputs, target, timeout, large) if info["patched"] else plain_run
        if precision == "int8" and "outputs" in plain_run and "outputs" in row["patched"]:
            row["same"] = all(torch.equal(a, b) for a, b in zip(plain_run["outputs"], row["patched"]["outputs"]))
        if reference is not None and "outputs" in row["patched"]:
            # fp32 on the board: the patched program's outputs against the unpatched one's on CPython
            row["board_close"] = _close(row["patched"]["outputs"], reference)
    return rows


def _stage(info):
    if not info["patched"]:
        return "not patched (no stage lowers the RAM it counts)"
    ops = [op.split("::")[1].split(".")[0] for op, _ in info["stage"]]
    sub = ", the stem in sub-bands of %d row(s)" % info["sub"] if info.get("sub") else ""
    return "instructions %d..%d (%s), %d bands%s" % (info["first"], info["last"], " ".join(ops), len(info["bands"]), sub)


def _variant(v):
    return "True" if VARIANTS[v] is True else ", ".join("%s=%r" % kv for kv in VARIANTS[v].items())


def _fits(r):
    if r is None:
        return ""
    if r.get("error"):
        return "**no**: %s" % r["error"]
    return "yes ({:,} B free, {:,} B beyond the arena)".format(r["free"], r["beyond"])


def table(rows, target):
    out = [
        "| model | precision | patch= | arena B | patched arena B | patched / arena | extra MACs | %s instr. | patched | patched / unpatched | runs on the %s board | patched runs | outputs equal |"
        % (target, BOARD_HEAP),
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        info = r["info"]
        extra = info["macs_after"] - info["macs_before"]
        plain, patched = r.get("plain"), r.get("patched")
        instr = [x.get("instructions") if x else None for x in (plain, patched)]
        out.append(
            "| %s | %s | %s | {:,} | {:,} | %.3f | {:,} (%+.1f%%) | %s | %s | %s | %s | %s | %s |".format(
                r["arena"], r["arena_patched"], extra
            )
            % (
                r["model"],
                r["precision"],
                _variant(r["variant"]),
                r["arena_patched"] / r["arena"],
                100.0 * extra / info["macs_before"] if info["macs_before"] else 0.0,
                "{:,}".format(instr[0]) + (" (%s)" % plain["on"] if plain.get("on") else "") if instr[0] else "",
                "{:,}".format(instr[1]) + (" (%s)" % patched["on"] if patched.get("on") else "") if instr[1] else "",
                "%.3f" % (instr[1] / instr[0]) if instr[0] and instr[1] else "",
                _fits(plain),
                _fits(patched),
                {True: "yes", False: "**no**", None: ""}[r.get("same")]
                + {True: "; board = CPython (1e-5): yes", False: "; board = CPython (1e-5): **no**", None: ""}[r.get("board_close")],
            )
        )
    out += ["", "Patched stages:", ""]
    for r in rows:
        out.append("- %s %s, %s: %s" % (r["model"], r["precision"], _variant(r["variant"]), _stage(r["info"])))
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", help="zoo models (default: the conv models)")
    ap.add_argument("--target", default="cortex-m3")
    ap.add_argument("--no-board", action="store_true", help="arena and MACs only")
    ap.add_argument("--fp32-board", action="store_true", help="also run the fp32 programs on the board")
    ap.add_argument("--precision", choices=("int8", "fp32"), help="only this precision (default: both)")
    ap.add_argument("--no-large", action="store_true", help="do not rerun what fails on the board on its large variant")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per board run")
    args = ap.parse_args(argv)
    rows = []
    for name in args.models or CONV_MODELS:
        for precision in (args.precision,) if args.precision else ("int8", "fp32"):
            board = False if args.no_board else ("fp32" if args.fp32_board else True)
            for row in measure(name, precision, args.target, board, args.timeout, not args.no_large):
                brief = {k: v for k, v in row.items() if k not in ("plain", "patched")}
                for k in ("plain", "patched"):
                    if row.get(k):
                        brief[k] = {a: b for a, b in row[k].items() if a != "outputs"}
                print(brief, file=sys.stderr, flush=True)
                rows.append(row)
    print(table(rows, args.target))


if __name__ == "__main__":
    main()

"""RAM figures per model: our plan vs ExecuTorch 1.5.1's, the lower bound,
predicted vs measured load heap, weight independence and streaming.

For every zoo model (host_tools.zoo; the examples when the zoo is absent):
planned arena bytes of our .pte and of the .pte ExecuTorch's own exporter
writes, the live-set lower bound, the ratios, and the heap load_method keeps
on unix MicroPython against inspect()'s prediction. Prints a markdown table;
not a pass/fail test.

    python benchmarks/bench_memory.py [MODEL ...]
"""

import os
import sys
import tempfile

import torch

from host_tools import export, inspect, run


def models(names):
    try:
        from host_tools.zoo import ZOO
    except ImportError:
        ZOO = None
    if ZOO:
        for name in names or sorted(ZOO):
            model, inputs = ZOO[name]()
            yield name, model, tuple(inputs)
        return
    import runpy

    here = os.path.join(os.path.dirname(__file__), "..", "host_tools", "examples")
    for name in names or ("mlp", "cnn"):
        ns = runpy.run_path(os.path.join(here, name + ".py"))
        yield name, ns["model"], tuple(ns["example_inputs"])


def et_planned(model, inputs):
    from executorch.exir import to_edge

    pte = to_edge(torch.export.export(model, inputs)).to_executorch().buffer
    return inspect(pte)


def plan_table(names):
    print("| model | ours B | ExecuTorch B | ours / ET | lower bound B | ours / bound | load heap predicted B | measured B | pred / meas |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, model, inputs in models(names):
        try:
            pte = export(model, inputs)
            ours = inspect(pte)
            theirs = et_planned(model, inputs)
            measured = run(pte, inputs, "unix", repeat=1, heap_bytes=64 * 1024 * 1024, reload=True).stats["load_method_heap_bytes"]
        except Exception as e:  # report and go on: one model's failure is a row, not the end of the table
            print("| %s | failed: %s |" % (name, str(e).splitlines()[0][:100]))
            continue
        print(
            "| %s | %d | %d | %.2f | %d | %.3f | %d | %d | %.2f |"
            % (
                name,
                ours["planned_bytes"],
                theirs["planned_bytes"],
                ours["planned_bytes"] / max(1, theirs["planned_bytes"]),
                ours["lower_bound_bytes"],
                ours["plan_efficiency"],
                ours["predicted_load_heap_bytes"],
                measured,
                ours["predicted_load_heap_bytes"] / measured,
            )
        )


def weight_independence():
    kept = []
    for width in (40, 4096):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(width, 64), torch.nn.ReLU()).eval()
        x = (torch.randn(1, width),)
        pte = export(model, x)
        s = run(pte, x, "unix", repeat=1, heap_bytes=8 * 1024 * 1024, reload=True).stats
        kept.append((len(pte), s["load_method_heap_bytes"] - s["arena_bytes"]))
    print(
        "\nweight independence: .pte %d B keeps %d B; .pte %d B keeps %d B (difference %d B)"
        % (*kept[0], *kept[1], kept[1][1] - kept[0][1])
    )


def streaming():
    torch.manual_seed(3)
    layers = []
    for _ in range(6):
        layers += [torch.nn.Linear(128, 128), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers, torch.nn.Linear(128, 4)).eval()
    x = (torch.randn(1, 128),)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "deep.pte")
        pte = export(model, x, path)
        ram = run(path, x, "unix", repeat=20, heap_bytes=4 * 1024 * 1024).stats
        streamed = run(path, x, "unix", repeat=20, heap_bytes=256 * 1024, stream=True).stats
    print(
        "\nstreaming: %d B .pte (weights > the 256 KB heap) runs streamed in 256 KB: scratch %d B, heap free after load %s B; "
        "execute %d us streamed vs %d us in RAM (%.2fx)"
        % (
            len(pte),
            streamed["stream_scratch_bytes"],
            streamed["heap_free_after_load"],
            streamed["execute_us"],
            ram["execute_us"],
            streamed["execute_us"] / ram["execute_us"],
        )
    )


if __name__ == "__main__":
    plan_table(sys.argv[1:])
    weight_independence()
    streaming()

"""Recurrent int8: the unrolled time steps of a GRU / LSTM cell share one set
of quantization parameters (host_tools/quantize/share_steps.py), so every
step after the first requantizes the cell's recurrent projection with the
same constants and the program stores them once."""

import collections

import pytest
import torch

from host_tools import export, run
from host_tools.zoo import build


def _calibration(inputs, n=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [tuple(torch.randn(t.shape, generator=g) for t in inputs) for _ in range(n)]


@pytest.mark.parametrize("name", ["gru", "lstm"])
def test_time_steps_share_the_cells_requantization(name):
    model, inputs = build(name)
    report = {}
    pte = export(model, tuple(inputs), quantize="int8", calibration=_calibration(inputs), report=report)
    uses = collections.Counter()
    chained = []  # a table lookup of a table lookup's output: one table does both (fuse_rows.requantized)
    for n in report["reference"].graph.nodes:
        if n.op == "call_function" and str(n.target) == "mpy_et_quant.linear.default":
            uses[(n.args[1].target, n.args[3].target)] += 1  # (weight, requant) constants
        if n.op == "call_function" and str(n.target) == "mpy_et_quant.lut.default" and str(n.args[0].target) == "mpy_et_quant.lut.default":
            chained.append(n.name)
    assert not chained, chained
    steps = 20  # the zoo's recurrent models run 20 steps
    # the recurrent projection: one (weight, requant) pair for every step but the first, whose
    # input is the initial state (its own scale)
    assert max(uses.values()) == steps - 1, uses
    # still the model: near float PyTorch (measured with 16 random calibration batches, seeds 0-2:
    # gru 1.2-1.9% of the output range, lstm 3-26%, the same as with a scale per step;
    # bit-exactness against the host reference: test_quant_zoo)
    ours = run(pte, inputs, "cpython").outputs[0]
    ref = model(*inputs)
    ref = ref[0] if isinstance(ref, tuple) else ref
    assert (ours - ref).abs().max().item() <= 0.3 * ref.abs().max().item(), (ours, ref)
    # was 127 KB (gru) / 144 KB (lstm) with a scale per step; 91 KB for lstm with one per cell,
    # 101 KB since the channel tables also hold the Arm requantization's operands (read from flash)
    assert len(pte) < 110_000, len(pte)

"""ExecuTorch's own Cortex-M flow, as its user runs it (tests and benchmarks only).

CortexMQuantizer (PT2E) -> to_edge(cortex_m_edge_compile_config()) ->
CortexMPassManager(...).transform() -> to_executorch(). The transformed edge
program, run in Python, is ExecuTorch's reference for what the device computes
(executorch.backends.cortex_m.ops.operators implement the cortex_m:: ops in torch).
"""

import copy

import torch

MODELS = ("ds_cnn", "mobilenet_v1_025", "resnet8", "deep_autoencoder")


def build(name):
    """The MLPerf Tiny model `name` of executorch.examples.models.mlperf_tiny and its input shape."""
    from executorch.examples.models.mlperf_tiny import deep_autoencoder, ds_cnn, mobilenet_v1_025, resnet8

    torch.manual_seed(0)  # the example models come with random weights: the same ones every run
    if name == "ds_cnn":
        return ds_cnn.DSCNNKWS().eval(), (1, 1, 49, 10)
    if name == "mobilenet_v1_025":
        return mobilenet_v1_025.MobileNetV1025().eval(), (1, 3, 96, 96)
    if name == "resnet8":
        return resnet8.ResNet8().eval(), (1, 3, 32, 32)
    if name == "deep_autoencoder":
        return deep_autoencoder.DeepAutoEncoder().eval(), (1, 640)
    raise ValueError(name)


def sample(shape, gen):
    """A random input in [-1, 1), channels-last when 4-D (as ExecuTorch's tests feed them)."""
    x = torch.rand(shape, generator=gen) * 2 - 1
    return x.to(memory_format=torch.channels_last) if x.dim() == 4 else x


def export(model, shape, *, calibration=8, seed=0, target_config=None, explicit_layout=False):
    """Run the whole flow. Returns (pte bytes, transformed edge ExportedProgram).

    target_config: CortexMTargetConfig (default: its own, Cortex-M55); explicit_layout:
    the pass manager's experimental explicit-layout lowering (cortex_m::*_nhwc ops)."""
    from executorch.backends.cortex_m.edge_compile_config import cortex_m_edge_compile_config
    from executorch.backends.cortex_m.passes.cortex_m_pass_manager import CortexMPassManager
    from executorch.backends.cortex_m.quantizer.quantizer import CortexMQuantizer
    from executorch.exir import to_edge
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    gen = torch.Generator().manual_seed(seed)
    x = sample(shape, gen)
    # torch 2.13: the default .module() adds a guard submodule that the Cortex-M passes reject.
    gm = torch.export.export(model, (x,), strict=True).module(check_guards=False)
    prepared = prepare_pt2e(gm, CortexMQuantizer())
    with torch.no_grad():
        for _ in range(calibration):
            prepared(sample(shape, gen))
    converted = convert_pt2e(prepared)
    ep = torch.export.export(converted, (x,), strict=True)
    edge = to_edge(ep, compile_config=cortex_m_edge_compile_config())
    transformed = CortexMPassManager(edge.exported_program(), target_config=target_config, use_explicit_layout=explicit_layout).transform()
    kept = copy.deepcopy(transformed)  # to_executorch rewrites the graph it is given
    edge = to_edge(transformed, compile_config=cortex_m_edge_compile_config())
    return edge.to_executorch().buffer, kept


def reference(transformed, x):
    """ExecuTorch's reference output: the transformed edge program run in Python."""
    import executorch.backends.cortex_m.quantizer.quantizer  # noqa: F401  (imports ops.operators: registers the cortex_m:: kernels)

    with torch.no_grad():
        out = transformed.module()(x)
    return out[0] if isinstance(out, (tuple, list)) else out

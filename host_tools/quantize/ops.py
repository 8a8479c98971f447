"""The mpy_et_quant operator namespace, registered with torch.library.

Each operator has a functional form (used in the fused graph, run on the
host by host_tools/quantize/ref.py: the integer reference) and an `.out` form
whose schema is what a .pte names (`mpy_et_quant::add.out`) and what
portable_kernels/quantized/op_<name>.py implements. conv2d, conv1d and linear
are written to a .pte as their `_packed` forms (host_tools/quantize/pack.py).
Schemas: SCHEMAS below.
"""

import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401 (registers quantized_decomposed ops)

from host_tools.quantize import pack as quant_pack
from host_tools.quantize import ref as quant_ref
from host_tools.quantize import ref_bmm as quant_ref_bmm
from host_tools.quantize import ref_log_softmax as quant_ref_log_softmax
from host_tools.quantize import ref_norm as quant_ref_norm

NAMESPACE = "mpy_et_quant"

# name -> (arguments, out dtype, reference)
SCHEMAS = {
    "quantize_per_tensor": (
        "Tensor x, Tensor thresholds, Tensor buckets, float scale, int zero_point, int qmin, int qmax",
        torch.int8,
        quant_ref.quantize_per_tensor,
    ),
    "dequantize_per_tensor": ("Tensor x, Tensor table, float scale, int zero_point", torch.float32, quant_ref.dequantize_per_tensor),
    "conv2d": (
        "Tensor x, Tensor weight, Tensor bias, Tensor requant, int[] stride, int[] padding, int[] dilation, int groups, "
        "int x_zero_point, int out_zero_point, int out_min, int out_max",
        torch.int8,
        quant_ref.conv2d,
    ),
    "conv1d": (
        "Tensor x, Tensor weight, Tensor bias, Tensor requant, int[] stride, int[] padding, int[] dilation, int groups, "
        "int x_zero_point, int out_zero_point, int out_min, int out_max",
        torch.int8,
        quant_ref.conv2d,
    ),
    "linear": (
        "Tensor x, Tensor weight, Tensor bias, Tensor requant, int x_zero_point, int out_zero_point, int out_min, int out_max",
        torch.int8,
        quant_ref.linear,
    ),
    # what a .pte names instead of the three above (host_tools/quantize/pack.py: weights in the layout kernels read)
    "conv2d_packed": (
        "Tensor x, Tensor weight, Tensor channels, int[] kernel_size, int[] stride, int[] padding, int[] dilation, int groups, "
        "int x_zero_point, int out_zero_point, int out_min, int out_max",
        torch.int8,
        quant_pack.conv_packed,
    ),
    "conv1d_packed": (
        "Tensor x, Tensor weight, Tensor channels, int[] kernel_size, int[] stride, int[] padding, int[] dilation, int groups, "
        "int x_zero_point, int out_zero_point, int out_min, int out_max",
        torch.int8,
        quant_pack.conv_packed,
    ),
    "linear_packed": (
        "Tensor x, Tensor weight, Tensor channels, int x_zero_point, int out_zero_point, int out_min, int out_max",
        torch.int8,
        quant_pack.linear_packed,
    ),
    "add": (
        "Tensor a, Tensor b, int a_zero_point, int a_multiplier, int b_zero_point, int b_multiplier, "
        "int multiplier, int shift, int limit, int out_zero_point, int out_min, int out_max",
        torch.int8,
        quant_ref.add,
    ),
    "mul": (
        "Tensor a, Tensor b, int a_zero_point, int b_zero_point, int multiplier, int shift, int limit, int out_zero_point, int out_min, int out_max",
        torch.int8,
        quant_ref.mul,
    ),
    "bmm": (
        "Tensor a, Tensor b, int a_zero_point, int b_zero_point, int multiplier, int shift, int limit, int out_zero_point, int out_min, int out_max",
        torch.int8,
        quant_ref_bmm.bmm,
    ),
    "clamp": ("Tensor x, int min, int max", torch.int8, quant_ref.clamp),
    "layer_norm": (
        "Tensor x, Tensor requant, Tensor offsets, Tensor eps_table, int x_zero_point, int out_zero_point",
        torch.int8,
        quant_ref_norm.layer_norm,
    ),
    "upsample_nearest2d": ("Tensor x, float[] scale_factors", torch.int8, quant_ref.upsample_nearest2d),
    "lut": ("Tensor x, Tensor table", torch.int8, quant_ref.lut),
    "softmax": ("Tensor x, Tensor table, int dim, int levels, int out_zero_point", torch.int8, quant_ref.softmax),
    "log_softmax": (
        "Tensor x, Tensor exp_table, Tensor log_table, int dim, int frac_bits, int out_zero_point",
        torch.int8,
        quant_ref_log_softmax.log_softmax,
    ),
    "max_pool2d": ("Tensor x, int[] kernel_size, int[] stride, int[] padding, int[] dilation", torch.int8, quant_ref.max_pool2d),
    "avg_pool2d": (
        "Tensor x, int[] kernel_size, int[] stride, int x_zero_point, int multiplier, int shift, int limit, int out_zero_point",
        torch.int8,
        quant_ref.avg_pool2d,
    ),
}

_lib = torch.library.Library(NAMESPACE, "DEF")


def _register(name, args, dtype, ref):
    _lib.define("%s(%s) -> Tensor" % (name, args))
    _lib.define("%s.out(%s, *, Tensor(a!) out) -> Tensor(a!)" % (name, args))

    def functional(*a):
        return ref(*a).to(dtype).contiguous()

    def out_variant(*a, out):
        out.copy_(ref(*a))
        return out

    _lib.impl(name, functional, "CPU")
    _lib.impl(name + ".out", out_variant, "CPU")
    torch.library.register_fake("%s::%s" % (NAMESPACE, name), _fake_via_shapes(name, dtype), lib=_lib)


def _fake_via_shapes(name, dtype):
    def fake(*a):
        shape = output_shape(name, a)
        return a[0].new_empty(shape, dtype=dtype)

    return fake


def _conv_len(n, k, s, p, d):
    return (n + 2 * p - d * (k - 1) - 1) // s + 1


def output_shape(name, a):
    """Output shape of an mpy_et_quant op from its arguments (for fake tensors)."""
    x = a[0]
    if name in ("conv2d", "conv1d"):
        w, stride, padding, dilation = a[1], a[4], a[5], a[6]
        spatial = [_conv_len(x.shape[2 + i], w.shape[2 + i], stride[i], padding[i], dilation[i]) for i in range(x.dim() - 2)]
        return [x.shape[0], w.shape[0]] + spatial
    if name in ("conv2d_packed", "conv1d_packed"):
        ks, stride, padding, dilation = a[3], a[4], a[5], a[6]
        spatial = [_conv_len(x.shape[2 + i], ks[i], stride[i], padding[i], dilation[i]) for i in range(x.dim() - 2)]
        return [x.shape[0], a[1].shape[0]] + spatial
    if name in ("linear", "linear_packed"):
        return list(x.shape[:-1]) + [a[1].shape[0]]
    if name == "bmm":
        return list(x.shape[:-1]) + [a[1].shape[-1]]
    if name == "max_pool2d":
        k, s, p, d = a[1], a[2], a[3], a[4]
        return list(x.shape[:2]) + [_conv_len(x.shape[2 + i], k[i], s[i], p[i], d[i]) for i in range(2)]
    if name == "upsample_nearest2d":
        return list(x.shape[:2]) + [int(x.shape[2 + i] * a[1][i]) for i in range(2)]
    if name == "avg_pool2d":
        k, s = a[1], a[2]
        return list(x.shape[:2]) + [_conv_len(x.shape[2 + i], k[i], s[i], 0, 1) for i in range(2)]
    return list(x.shape)


for _name, (_args, _dtype, _ref) in SCHEMAS.items():
    _register(_name, _args, _dtype, _ref)


def op(name):
    """The functional OpOverload, e.g. op('conv2d')."""
    return getattr(getattr(torch.ops, NAMESPACE), name).default


def out_op(name):
    return getattr(getattr(torch.ops, NAMESPACE), name).out

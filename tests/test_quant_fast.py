"""int8 convolution / linear fast paths (portable_kernels/native/q_conv_viper.py,
native/q_conv_dw_viper.py, native/q_dot_thumb.py) against the pure-Python reference, on
zoo-like layer shapes: CPython (reference only), unix MicroPython (viper)
and the emulated Cortex-M3 and Cortex-M7 (viper + asm_thumb, 32-bit words;
armv7m and armv7emdp code) must print the
same output checksums, fast == reference within each MicroPython process,
under heap_lock. One process per target (tests/device/quant_fast_runner.py).
"""

import os

import pytest

from host_tools.targets import run_code

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "device", "quant_fast_runner.py")
_CACHE = {}
# depthwise layers whose every channel requantizes in one multiply (native/q_dw_step_thumb.py);
# "depthwise 3x3" has one that does not, and keeps the step by planes
# 3x3 depthwise layers the Thumb-2 assembler step takes (the rest have a channel whose accumulator
# clamp could change a result: the runner's FALLBACK_DW by their limits, two more by their
# multipliers and shifts; they run the plane-by-plane step, its fallback; ds_cnn's odd rows
# take the step in test_quant_zoo on cortex-m7)
DW_STEP = (
    "depthwise 3x3 bands",
    "depthwise 3x3 s2, extremes",
    "depthwise 3x3 pad 2 x 0, 7 wide",
)
DIRECT = ("conv 3x3 8 -> 1 (decoder)", "conv 3x3 s2 4 -> 4 grouped 2", "conv 3x3 s2 1 -> 8 (first layer)")
# by output pixels on Thumb-2 (native/q_conv_mla_thumb.py): one group, 3 wide (stride 1 or 2 across)
# or 5 wide (stride 1); with the DSP extension 3-wide kernels (by pixels and channels:
# native/q_conv_mla_dsp.rows_oc) and those with at most 8 output or 4 input channels
MLA = (
    "conv 3x3 16 -> 16 (resnet)",
    "conv 3x3 s2 dilated 2 x 1, 5 -> 7, batch 2, extremes",
    "conv 3x3 16 -> 8, 14 wide (autoencoder)",
    "conv 3x3 3 -> 31, bands",
    "conv 3x3 s2 (first layer)",
    "conv 1x3 130 wide, 21 channels",
    "conv 3x3 8 -> 1 (decoder)",
    "conv 3x3 s2 1 -> 8 (first layer)",
    "conv 5x5 1 -> 6 (lenet5)",
    "conv 5x5 rows s2 pad 2, 3 -> 5, batch 2, extremes",
    "conv 3x3 rows dilated 2, 6 -> 3",
    "conv 1x5, 3 -> 16, 40 wide",
)

# of those, the ones the DSP extension takes by output pixels and channels (q_conv_mla_dsp.rows_oc:
# 3 wide, stride 2 or 1 with one or at least 4 output channels)
MLA_OC = (
    "conv 3x3 8 -> 1 (decoder)",
    "conv 3x3 16 -> 16 (resnet)",
    "conv 3x3 s2 dilated 2 x 1, 5 -> 7, batch 2, extremes",
    "conv 3x3 16 -> 8, 14 wide (autoencoder)",
    "conv 3x3 3 -> 31, bands",
    "conv 3x3 s2 (first layer)",
    "conv 3x3 s2 1 -> 8 (first layer)",
)


def _layers(target):
    if target not in _CACHE:
        code = open(RUNNER).read()
        out = run_code(target, code, timeout=300)
        rows = [line[6:].split("|") for line in out.splitlines() if line.startswith("LAYER ")]
        assert len(rows) == 27, out[-2000:]
        _CACHE[target] = {name: (step, total, same) for name, step, total, same in rows}
    return _CACHE[target]


@pytest.mark.parametrize("target", ["unix", "cortex-m3-large", "cortex-m7"])
def test_fast_paths_match_the_reference_and_cpython(target):
    ref = _layers("cpython")
    got = _layers(target)
    for name, (step, total, same) in got.items():
        assert same == "same", (target, name, step)
        assert total == ref[name][1], (target, name, step, total, ref[name][1])
        assert ref[name][0].endswith("_conv_ref"), (name, ref[name][0])
    # the fast steps were taken: 3x3 depthwise by padded planes, the rest go by rows
    # through the asm_thumb dot kernel on Arm, the viper one elsewhere
    # (SMLAD on the Cortex-M7's DSP extension)
    dots = {"cortex-m7": "dsp", "cortex-m3-large": "thumb2"}.get(target, "viper")  # thumb2: MLA (armv7-m)
    for name, (step, _, _) in got.items():
        want = "native.q_conv_viper._step+" + dots
        if name in DW_STEP and dots != "viper":  # 3x3 on Thumb-2, every channel's multiplier fits: one assembler step
            want = "native.q_dw_step_thumb.dw3x3"
        elif name.startswith("depthwise"):  # 3x3: padded planes and asm_thumb windows on Arm
            want = "native.q_conv_dw3x3_thumb._step_thumb" if dots != "viper" else "native.q_conv_dw_viper._step_3x3"
            want += "+dsp" if dots == "dsp" else ""
        elif dots == "dsp" and name in MLA_OC:
            want = "native.q_conv_mla_dsp._step_oc"
        elif dots != "viper" and name in MLA:
            want = "native.q_conv_mla_thumb._step"
        elif name in DIRECT and dots == "viper":  # 3x3, 1-2 output channels per group: windows in place
            want = "native.q_conv_direct_viper._step"
        elif name.startswith("pointwise") and dots == "dsp":  # 1x1: the pixels read in place (q_dot_dsp.pwx)
            want = "native.q_conv_pw_viper._step_pw+dsp"
        elif name.startswith("linear") and dots != "viper":  # Thumb-2, K a multiple of 4: one assembler step
            want = "native.q_linear_thumb._linear"
        assert step == want, (target, name, step, want)

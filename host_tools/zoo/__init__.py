"""The model zoo: real tiny-ML architectures, deterministic weights, no downloads.

ZOO maps a name to a builder returning (model in eval mode, example inputs).
Weights come from a fixed seed (and batch-norm statistics are set to
non-trivial values) so every export of a zoo model is the same file.

    from host_tools.zoo import ZOO, build
    model, inputs = build("ds_cnn")
"""

import importlib

# name -> (module, one-line description)
MODELS = {
    "ds_cnn": ("kws", "MLPerf Tiny keyword spotting: DS-CNN on 49x10 MFCC, 12 classes"),
    "mobilenet_v1_025": ("vww", "MLPerf Tiny visual wake words: MobileNetV1 0.25 at 96x96x3, 2 classes"),
    "resnet8": ("resnet8", "MLPerf Tiny image classification: ResNet-8 at 32x32x3, 10 classes"),
    "fc_autoencoder": ("anomaly", "MLPerf Tiny anomaly detection: FC autoencoder on 640 inputs"),
    "lenet5": ("lenet", "LeNet-5 on 1x32x32"),
    "mlp": ("mlp", "MLP 64-128-64-10"),
    "imu_cnn1d": ("imu", "1-D CNN over 3-axis IMU windows of 128 samples, 6 classes"),
    "transformer_block": (
        "transformer",
        "nn.TransformerEncoderLayer: 4-head attention, layer norm, GELU (16 tokens x 32)",
    ),
    "gru": ("recurrent", "GRU (hidden 32) over 20 steps of 8 features, 4 classes"),
    "lstm": ("recurrent", "LSTM (hidden 32) over 20 steps of 8 features, 4 classes"),
    "mobilenet_v2_block": ("inverted_residual", "MobileNetV2 inverted-residual block, 16 channels at 24x24, expansion 6"),
    "conv_autoencoder": ("conv_ae", "conv autoencoder with nearest upsampling on 1x28x28"),
}


def build(name):
    """(model, example_inputs) of zoo model `name`."""
    if name not in MODELS:
        raise KeyError("no zoo model %r; the zoo has %s" % (name, ", ".join(sorted(MODELS))))
    module = importlib.import_module("host_tools.zoo." + MODELS[name][0])
    return module.build(name)


ZOO = {name: (lambda n=name: build(n)) for name in MODELS}

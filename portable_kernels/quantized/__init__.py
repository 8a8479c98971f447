"""Reference int8 kernels: mpy_et_quant::X.out lives in op_X.py; requant.py
holds the requantization they share (host_tools/quantize/ref.py defines it)."""

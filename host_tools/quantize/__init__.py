"""int8 post-training quantization: PT2E prepare/convert with our quantizer
(`pt2e.py`), lowering the quantized graph to mpy_et_quant:: operators
(`lower.py`, `fuse_rows.py`), their torch.library schemas (`ops.py`) and the
host integer reference that defines them bit for bit (`ref*.py`).
"""

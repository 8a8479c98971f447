"""Looking into programs and models: `inspect_pte.py` (plan, lower bound,
predicted load heap of any .pte) and `macs.py` (multiply-accumulate counts).
"""

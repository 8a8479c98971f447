"""From an exported torch graph to `.pte` bytes: capture's graph passes
(batch-norm folding, pooling without indices), lowering to out-variant
instructions (`lower.py`, the program IR in `ir.py`), and serialization
(`serialize.py`, `flatbuffer_writer.py`, the schema in `schema/program.fbs`
read by `fbs.py`; `gen_schema.py` writes the device's mpy_et/schema.py).
"""

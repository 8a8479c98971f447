"""Reference kernels: one module per operator family, pure Python.

Convention (see ARCHITECTURE.md): the registered function, named like the
operator (`aten::add.out` -> `op_add.add_out`), takes the instruction's values
in schema order (inputs first, outputs last), checks them at load time and
returns `(step, ctx)`: `step(ctx)` is called by Method.execute() and writes
the outputs in place. It may return None when nothing is left to do at run
time (a view resolved at load time, an empty output).

Shared pieces: `checks` (load-time argument checks and torch's type
promotion), `loops` (broadcast plans, the row odometer, raw copies, the
row-times-matrix loop) and `window` (pooling geometry). `registry.KERNELS`
maps operator names to (module, function).
"""

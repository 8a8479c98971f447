"""Developer tools over a device run, ExecuTorch's devtools for mpy_et:
the profile an EventTracer recorded (`profile.py`: per instruction and per
operator, `mpy-et profile`), written as ExecuTorch's ETDump (`etdump.py`,
schema in `schema/etdump.fbs`) for executorch.devtools.Inspector."""
